#!/usr/bin/env python3
"""harness_commands.py PACKAGING HARNESS: what the harness file of
packaging/ would have its job run, read from the file (no ReFrame or Ramble
here), one line of tab-separated fields: the sbatch options of its job, then
the command's words.
  reframe: num_tasks and num_tasks_per_node of the check (its job's size),
           the local launcher (the job runs the command itself), executable
           and the executable_opts of set_options for its first collective
           and deployment;
  ramble:  the executable template of 'study' filled with the defaults of
           its workload variables and n_ranks = 2 on 2 nodes.
Exits 1 when the file does not say what the test relies on."""
import ast
import shlex
import sys


def fail(message):
    print("harness_commands: " + message, file=sys.stderr)
    sys.exit(1)


def class_body(tree):
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            return node
    fail("no class")


def reframe(tree):
    cls = class_body(tree)
    values, opts = {}, None
    for node in cls.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "parameter":
                values[name] = ast.literal_eval(node.value.args[0])[0]
            else:
                try:
                    values[name] = ast.literal_eval(node.value)
                except ValueError:
                    pass
        if isinstance(node, ast.FunctionDef) and node.name == "set_options":
            opts = node.body[0].value
        if isinstance(node, ast.FunctionDef) and node.name == "set_launcher":
            if "getlauncher('local')" not in ast.unparse(node):
                fail("reframe: the job's launcher is not the local one")
    if opts is None or values.get("num_tasks") != 2:
        fail("reframe: no set_options or not 2 tasks: {}".format(values.get("num_tasks")))
    words = []
    for element in opts.elts:
        if isinstance(element, ast.Constant):
            words.append(element.value)
        else:  # self.collective, self.deployment
            words.append(values[element.attr])
    tasks, per_node = values["num_tasks"], values.get("num_tasks_per_node", 1)
    job = ["--ntasks={}".format(tasks), "--ntasks-per-node={}".format(per_node),
           "--nodes={}".format(tasks // per_node)]
    return job, [values["executable"]] + words


def ramble(tree):
    cls = class_body(tree)
    template, defaults = None, {"n_ranks": "2", "experiment_run_dir": "."}
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "executable":
            if ast.literal_eval(node.args[0]) == "study":
                template = ast.literal_eval(node.args[1])
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "workload_variable":
            name = ast.literal_eval(node.args[0])
            for kw in node.keywords:
                if kw.arg == "default":
                    defaults[name] = ast.literal_eval(kw.value)
    if template is None or "{n_ranks}" not in template:
        fail("ramble: no 'study' executable passing n_ranks: {}".format(template))
    return ["--ntasks=2", "--ntasks-per-node=1", "--nodes=2"], shlex.split(
        template.format(**defaults))


def main(packaging, harness):
    path = {"reframe": "reframe/bench_nbc_check.py", "ramble": "ramble/application.py"}[harness]
    with open(packaging + "/" + path) as f:
        tree = ast.parse(f.read(), path)
    job, words = {"reframe": reframe, "ramble": ramble}[harness](tree)
    print("\t".join(job + ["--"] + words))


if __name__ == "__main__":
    main(*sys.argv[1:])
