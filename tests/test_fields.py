"""What a model, a GPU and a precision are, declared once (planner/model/fields.py): every field has its Catalog
column, its row in docs/scenario.md and, for a model, its config.json keys or an explicit "not in config.json"; the
scenario's entries, the shipped rows, the Catalog's blocks and `planner catalog` all follow the declarations, as
tests/test_registry.py walks the tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner import shipped
from planner.cli import main
from planner.model import fields
from planner.scenario import catalog_entries as entries
from planner.workbook import catalog_sheet

ROOT = Path(__file__).resolve().parents[1]
SCENARIO_DOC = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
KINDS = [("models", fields.MODEL, catalog_sheet.MODELS, entries.ModelEntry, shipped.MODELS),
         ("gpus", fields.GPU, catalog_sheet.GPUS, entries.GPUEntry, shipped.GPUS),
         ("precisions", fields.PRECISION, catalog_sheet.PRECISIONS, entries.PrecisionEntry, shipped.PRECISIONS)]
EVERY_FIELD = [pytest.param(kind, field, block, entry, rows, id=f"{kind}.{field.key}")
               for kind, declared, block, entry, rows in KINDS for field in declared]


@pytest.mark.parametrize("kind, field, block, entry, rows", EVERY_FIELD)
def test_each_field_has_its_catalog_column_docs_row_and_scenario_key(kind, field, block, entry, rows):
    column = next((c for c in block.columns if c.key == field.key), None)
    assert column is not None, f"Catalog block {block.prefix} has no column {field.key}"
    assert block.name(column) == f"catalog_{kind.removesuffix('s')}_{field.key}"
    assert column.kind == field.kind and column.header == field.heading
    limits = (None, None) if field.type in ("bool", "text") else (field.ge, field.le)  # text: its length
    assert (column.allowed.optional, column.allowed.minimum, column.allowed.maximum) == (field.sheet_blank, *limits)
    assert f"`catalog.{kind}.<id>.{field.key}`" in SCENARIO_DOC, f"docs/scenario.md has no row for {field.key}"
    assert field.key in entry.model_fields  # the scenario's catalog entry takes it
    for row in rows.values():  # every shipped row gives an allowed value (or leaves it blank where it may)
        value = getattr(row, field.key)
        assert fields.out_of_range(field, value) is None, f"{row.id}.{field.key} = {value!r}"
        assert value is not None or field.new == fields.OPTIONAL


@pytest.mark.parametrize("field", fields.MODEL, ids=lambda f: f.key)
def test_each_model_field_names_its_config_keys_or_says_it_has_none(field):
    assert field.config == fields.NOT_IN_CONFIG or (isinstance(field.config, tuple) and field.config), field.key


def test_a_new_entry_needs_the_required_fields_and_no_more():
    assert fields.required(fields.MODEL) == ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab")
    assert fields.required(fields.GPU) == ("memory_gb", "peak_tflops", "hbm_tbps")
    assert entries.CustomGPU.model_fields["memory_gb"].is_required()
    assert not entries.CustomGPU.model_fields["nvlink_gbps"].is_required()


def test_a_gpu_row_needs_only_what_every_table_reads():
    # memory, peak, bandwidth and price: the rest may be blank on Catalog, and only the tables that read them say so
    required = {c.key for c in catalog_sheet.GPUS.columns if c.allowed is not None and not c.allowed.optional}
    assert required == {"memory_gb", "peak_tflops", "hbm_tbps", "price_per_hour"}
    assert fields.needed_by(fields.GPU, fields.SEARCH) == ("nvlink_gbps", "network_gbps", "gpus_per_node",
                                                           "gemm_efficiency")
    assert fields.needed_by(fields.GPU, fields.SERVING_TP) == ("nvlink_gbps",)


def test_out_of_range_says_what_is_allowed():
    experts_per_token = fields.named(fields.MODEL)["experts_per_token"]
    assert fields.out_of_range(experts_per_token, 10_001) == "a whole number from 0 to 10,000"
    assert fields.out_of_range(experts_per_token, 8) is None
    assert fields.out_of_range(experts_per_token, 8.5) == "a whole number from 0 to 10,000"
    assert fields.out_of_range(fields.named(fields.PRECISION)["fp8_gemm"], 1) == "TRUE or FALSE"


def test_planner_catalog_lists_every_field_of_every_kind():
    listing = CliRunner().invoke(main, ["catalog"]).output
    for heading, declared in (("Models", fields.MODEL), ("GPUs", fields.GPU), ("Precisions", fields.PRECISION)):
        line = next(line for line in listing.splitlines() if line.startswith(heading + " ("))
        assert [re.sub(r" \(.*", "", part) for part in line[len(heading) + 2:-1].split(", ")] == \
            [f.key for f in declared]
