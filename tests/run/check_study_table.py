#!/usr/bin/env python3
"""check_study_table.py STUDY_DIR FORMATS_MD: the study's tidy table
(study.csv) loads with Python's csv reader; its first columns are the run
columns docs/formats.md documents (its table of study.csv), in that order,
then the columns of the runs' cells.csv; study_columns.json names every
column in order, the run columns as nbc-run's; each run with a cells.csv
has one row per cell whose run columns match study.json and whose other
columns are its cells.csv row, value for value; run_folder leads to the run.
Prints the rows and runs checked; exits 1 with the first difference."""
import csv
import json
import os
import re
import sys


def fail(message):
    print("check_study_table: " + message, file=sys.stderr)
    sys.exit(1)


def documented_columns(formats_md):
    """The column names of the study.csv table of docs/formats.md."""
    with open(formats_md) as f:
        text = f.read()
    start = text.find("### study.csv and study_columns.json")
    if start < 0:
        fail(formats_md + " has no section on study.csv")
    names = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = line.split("|")
        if len(cells) > 2 and cells[1].strip().startswith("`"):
            names += re.findall(r"`([a-z_]+)`", cells[1])
    return names


def main():
    study_dir, formats_md = sys.argv[1], sys.argv[2]
    with open(os.path.join(study_dir, "study.json")) as f:
        study = json.load(f)
    if study.get("table") != "study.csv" or study.get("dictionary") != "study_columns.json":
        fail("study.json does not name study.csv and study_columns.json")
    with open(os.path.join(study_dir, "study.csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    documented = documented_columns(formats_md)
    if not documented or header[:len(documented)] != documented:
        fail("study.csv begins with {}, docs/formats.md documents {}".format(
            header[:len(documented)], documented))
    with open(os.path.join(study_dir, "study_columns.json")) as f:
        dictionary = json.load(f)
    names = [c["name"] for c in dictionary["columns"]]
    if names != header:
        fail("study_columns.json names {}, study.csv has {}".format(names, header))
    own = [c["name"] for c in dictionary["columns"] if c["source"] == "nbc-run"]
    if own != documented or any(c["source"] != "cells.csv" for c in dictionary["columns"]
                                if c["name"] not in own):
        fail("study_columns.json: the run columns are {}".format(own))
    table = [dict(zip(header, row)) for row in body]
    if any(len(row) != len(header) for row in body):
        fail("a row of study.csv has not {} fields".format(len(header)))
    top = os.path.dirname(os.path.abspath(study_dir))
    runs = 0
    for run in study["runs"]:
        cells_csv = os.path.join(run["run_dir"] or "", "cells.csv")
        mine = [r for r in table if r["run_index"] == str(run["index"])]
        if not os.path.isfile(cells_csv):
            if mine:
                fail("run {} has no cells.csv but rows in study.csv".format(run["index"]))
            continue
        runs += 1
        with open(cells_csv, newline="") as f:
            cells = list(csv.DictReader(f))
        if len(mine) != len(cells):
            fail("run {}: {} rows in study.csv, {} in its cells.csv".format(
                run["index"], len(mine), len(cells)))
        setting = run.get("setting") or {}
        want = {"run_name": run["name"], "run_status": run["status"], "run_mpi": run["mpi"],
                "run_collective": run["collective"], "run_deployment": run["deployment"],
                "run_launch": str(run["launch"]), "run_setting_name": setting.get("name", ""),
                "run_setting_value": setting.get("value", "")}
        for row, cell in zip(mine, cells):
            for key, value in want.items():
                if row[key] != value:
                    fail("run {}: {} is '{}', study.json says '{}'".format(
                        run["index"], key, row[key], value))
            if os.path.realpath(os.path.join(top, row["run_folder"])) != \
                    os.path.realpath(run["run_dir"]):
                fail("run {}: run_folder {} is not {}".format(run["index"], row["run_folder"],
                                                              run["run_dir"]))
            for key, value in cell.items():
                if row[key] != value:
                    fail("run {}: column {} is '{}' in study.csv, '{}' in cells.csv".format(
                        run["index"], key, row[key], value))
    if runs == 0:
        fail("no run with a cells.csv")
    print("study.csv: {} rows of {} runs, {} run columns as documented, {} columns of cells.csv"
          .format(len(body), runs, len(documented), len(header) - len(documented)))


if __name__ == "__main__":
    main()
