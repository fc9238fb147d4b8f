#!/usr/bin/env python3
"""add_records.py RUN_DIR RECORDS_JSON: the records a real run's files hold
(report_pdf_records.json: its "meta.json" keys and its "provenance.json")
added to a run folder, its own numbers kept."""
import json
import os
import sys

run, records = sys.argv[1], json.load(open(sys.argv[2]))
meta = json.load(open(os.path.join(run, "meta.json")))
meta.update(records["meta.json"])
json.dump(meta, open(os.path.join(run, "meta.json"), "w"), indent=1)
json.dump(records["provenance.json"], open(os.path.join(run, "provenance.json"), "w"), indent=1)
