"""A run or study folder's CSV files as the analysis tools read them: rows
by column name, numbers (NAN for what is not one), a median."""
import csv
import math
import statistics


def read_csv(path):
    """The rows of a CSV file as dicts; [] when it cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value


def median_of(rows, column):
    values = [number(r.get(column)) for r in rows]
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else math.nan
