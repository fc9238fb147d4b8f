/* The configuration written out: --help's key list, the run folder's
 * config.ini (which parses back to the same configuration) and the JSON
 * object of meta.json. */
#include "config/config.h"
#include "config/internal.h"

#include <stdbool.h>
#include <string.h>

#include <json-c/json.h>

/* Prints prefix then text, wrapped at HELP_WIDTH columns, every line indented. */
#define HELP_WIDTH  96
#define HELP_INDENT "      "
static void print_wrapped(FILE *out, const char *prefix, const char *text)
{
    fprintf(out, "%s%s", HELP_INDENT, prefix);
    size_t column = strlen(HELP_INDENT) + strlen(prefix);
    bool first_on_line = true;
    for (text += strspn(text, " "); *text; text += strspn(text, " ")) {
        size_t word = strcspn(text, " ");
        if (!first_on_line && column + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%s", HELP_INDENT);
            column = strlen(HELP_INDENT);
            first_on_line = true;
        }
        if (!first_on_line) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)word, text);
        column += word;
        text += word;
        first_on_line = false;
    }
    fputc('\n', out);
}

void nbc_config_print_help(FILE *out)
{
    const char *sections[CONFIG_KEY_COUNT];
    size_t section_count = config_list_sections(sections);
    fprintf(out, "Configuration keys: key = value lines under [section] headings in the file "
                 "given with -c;\nany key can be overridden with --set section.key=value.\n");
    for (size_t s = 0; s < section_count; s++) {
        fprintf(out, "\n[%s]\n", sections[s]);
        for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
            const key_desc *key = &config_keys()[i];
            if (strcmp(key->section, sections[s]) != 0)
                continue;
            char allowed[MESSAGE_MAX];
            config_describe_allowed(key, NULL, allowed, sizeof allowed);
            fprintf(out, "  %s.%s  (%s%s%s, default %s)\n", key->section, key->name,
                    config_value_type(key->type)->name, key->unit ? ", unit " : "",
                    key->unit ? key->unit : "", key->default_text[0] ? key->default_text : "empty");
            print_wrapped(out, "", key->help);
            print_wrapped(out, "allowed: ", allowed);
        }
    }
}

int nbc_config_dump_ini(const nbc_config *cfg, FILE *out)
{
    const char *sections[CONFIG_KEY_COUNT];
    size_t section_count = config_list_sections(sections);
    if (fprintf(out, "; bench_nbc configuration: every key, as used by this run\n") < 0)
        return -1;
    for (size_t s = 0; s < section_count; s++) {
        if (fprintf(out, "\n[%s]\n", sections[s]) < 0)
            return -1;
        for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
            if (strcmp(config_keys()[i].section, sections[s]) == 0 &&
                fprintf(out, "%s = %s\n", config_keys()[i].name, cfg->values->text[i]) < 0)
                return -1;
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

json_object *nbc_config_to_json(const nbc_config *cfg)
{
    json_object *root = json_object_new_object();
    json_object *section = NULL;
    if (root == NULL)
        return NULL;
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const key_desc *key = &config_keys()[i];
        if (i == 0 || strcmp(key->section, config_keys()[i - 1].section) != 0) {
            section = json_object_new_object();
            if (section == NULL || json_object_object_add(root, key->section, section) != 0) {
                json_object_put(section);
                json_object_put(root);
                return NULL;
            }
        }
        json_object *value = config_value_type(key->type)->to_json(key, cfg);
        if (value == NULL || json_object_object_add(section, key->name, value) != 0) {
            json_object_put(value);
            json_object_put(root);
            return NULL;
        }
    }
    return root;
}
