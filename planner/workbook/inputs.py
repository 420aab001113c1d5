"""The Inputs sheet: one named, validated input cell per scenario key (PRODUCT.md, "The workbook")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.workbook import kit


@dataclass(frozen=True)
class Input:
    """One input cell. Its defined name is the scenario key path joined by "_" (memory.gpus → memory_gpus)."""

    path: str  # dotted scenario key path; list items are 1-based: hours.allocations.1.gpus
    label: str
    unit: str
    note: str
    kind: str  # a number format from kit.FORMATS, or "bool" / "text"
    validation: dict

    @property
    def name(self) -> str:
        return self.path.replace(".", "_")

    def value(self, normalised: dict) -> Any:
        value: Any = normalised
        for part in self.path.split("."):
            value = value[int(part) - 1] if isinstance(value, list) else value[part]
        return value

    def valid_formula(self) -> str:
        """A formula that is TRUE while the input holds a value its validation allows (pasting skips validation)."""
        v, n = self.validation, self.name
        if v["validate"] == "list":
            if v["source"] == ["TRUE", "FALSE"]:
                return f"=ISLOGICAL({n})"
            return f"=ISNUMBER(MATCH({n},{v['source'].lstrip('=')},0))"
        if v["validate"] == "custom":
            return "=" + v["value"].lstrip("=").replace("{cell}", n)
        whole = f",{n}=INT({n})" if v["validate"] == "integer" else ""
        return f"=IF(ISNUMBER({n}),AND({n}>={v['minimum']},{n}<={v['maximum']}{whole}),FALSE)"


def general_inputs() -> list[Input]:
    return [
        Input("model", "Model", "", "A catalog model (see Catalog); choosing another updates every sheet.", "text",
              kit.one_of("=catalog_model_ids", "model")),
        Input("gpu", "GPU", "", "A catalog GPU (see Catalog): memory, peak TFLOPS, bandwidth.", "text",
              kit.one_of("=catalog_gpu_ids", "GPU")),
        Input("price_per_gpu_hour", "Price per GPU-hour", "currency",
              "Illustrative; set your contract price.", "money", kit.number(0)),
    ]


def write_inputs_sheet(book: kit.Book, sections: list[tuple[str, list[Input]]], normalised: dict) -> kit.Sheet:
    sheet = book.sheet("Inputs", [("Value", 18)])
    sheet.title("Inputs", "Blue cells on pale yellow are inputs: change them and every sheet follows.")
    sheet.header(["Value"], freeze=True)
    for title, inputs in sections:
        sheet.section(title)
        for spec in inputs:
            sheet.input(spec.name, spec.label, spec.value(normalised), spec.unit, spec.note, spec.kind,
                        spec.validation, name=spec.name)
        sheet.skip()
    return sheet
