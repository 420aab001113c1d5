"""The workbook kit's templates: previous-row and range tokens, per-column and records references, names where
they exist, and text that rounds as a spreadsheet does. LibreOffice recalculates a small sheet built with them."""

from __future__ import annotations

import io

import openpyxl
import pytest

from tests.conftest import SECTION
from planner.workbook import kit
from planner.listing import Allowed
from planner.workbook.kit import Column, Row


def tiny_book(target) -> kit.Book:
    """A day of four hours: demand, its growth from the hour before (the day repeating), and a total."""
    book = kit.Book(target)
    sheet = book.sheet("Day", [("", 12)] * 3)
    sheet.title("Day")
    demand = [5, 9, 7, 2]
    rows = [{"demand": d, "growth": max(0, d - demand[i - 1]), "share": d / sum(demand)}
            for i, d in enumerate(demand)]
    sheet.records([f"Hour {h}" for h in range(4)], [
        Column("demand", "Demand", template=lambda i: f"={demand[i]}*1", kind="count"),
        Column("growth", "Growth", template="=MAX(0,{demand}-{demand:prev})", kind="count"),
        Column("share", "Share", template="={demand}/SUM({demand:range})", kind="percent"),
    ], rows)
    sheet.row(Row("peak", "Peak", formula="=MAX({demand:range})", kind="count", name="peak"), 9)
    sheet.row(Row("double_peak", "Twice the peak", formula="=2*{peak}", kind="count"), 18)
    sheet.row(Row("canary", "Canary", formula="=21*2", kind="count", name="recalc_canary"), 42)
    book.close()
    return book


def test_tokens_expand_to_the_references_they_promise(tmp_path):
    path = tmp_path / "day.xlsx"
    tiny_book(str(path))
    sheet = openpyxl.load_workbook(path)["Day"]
    assert sheet["C5"].value == "=MAX(0,$B5-$B8)"  # hour 0 compares with hour 3: the day repeats
    assert sheet["C6"].value == "=MAX(0,$B6-$B5)"
    assert sheet["D6"].value == "=$B6/SUM($B$5:$B$8)"
    assert sheet["D9"].value == "=MAX($B$5:$B$8)"
    assert sheet["D10"].value == "=2*peak"  # a row with a defined name is read by its name


@pytest.mark.spreadsheet
def test_tokens_recalculate_in_libreoffice(libreoffice, tmp_path):
    path = tmp_path / "day.xlsx"
    book = tiny_book(str(path))
    [values] = libreoffice.recalculate([path])
    growth = [values[("Day", f"C{r}")] for r in range(5, 9)]
    assert growth == [3, 4, 0, 0]  # 5 after 2 (hour 3), 9 after 5, 7 after 9, 2 after 7
    assert values[("Day", "D10")] == 18
    for key, cached in book.formulas.items():  # the cached values are what LibreOffice computes
        assert values[key] == pytest.approx(cached, rel=1e-9), key


@pytest.mark.parametrize("value, decimals, shown", [
    (1.25, 1, "1.3"), (2.675, 2, "2.68"), (0.1 + 0.2, 1, "0.3"), (15.6, 1, "15.6"), (1024, 0, "1,024"),
    (-1.25, 1, "-1.3"), (1234567.5, 0, "1,234,568")])
def test_text_rounds_halves_away_from_zero_at_15_digits(value, decimals, shown):
    """Excel's TEXT: 2.675 is 2.67499999… in binary, yet 2.68 at 15 significant digits; Python says 2.67."""
    assert kit.excel_fixed(value, decimals) == shown


def test_text_formula_joins_text_and_named_cells():
    formula = kit.text_formula('{model} at {hours_mfu|percent} on {hours_tokens|tera} T "tokens"',
                               {"model": "llama-3.1-8b", "hours_mfu": 0.405, "hours_tokens": 15.6e12})
    assert formula.formula == ('=model&" at "&IF(ISNUMBER(hours_mfu),TEXT(hours_mfu,"0%"),"?")&" on "&'
                               'IF(ISNUMBER(hours_tokens),TEXT(hours_tokens/1e+12,"#,##0.0"),"?")&" T ""tokens"""')
    assert formula.value == 'llama-3.1-8b at 41% on 15.6 T "tokens"'


def test_money_formats_follow_the_currency():
    book = kit.Book(io.BytesIO(), currency_symbol="€")
    assert book.number_format("money0") == '"€"#,##0'
    assert kit.Book(io.BytesIO(), currency_symbol="CHF").number_format("money") == '#,##0.00" CHF"'
    assert book.number_format("gb", None) == '#,##0.0" GB"' and book.number_format("gb") == "#,##0.0"


def test_a_choice_placeholder_shows_an_id_as_itself_and_a_number_with_separators():
    """{name|choice}: a dropdown cell that may hold a preset id or the number typed instead."""
    preset = kit.text_formula("traffic {crossover_tokens_per_day|choice}", {"crossover_tokens_per_day": "pilot"})
    assert preset.formula == ('="traffic "&IFERROR(IF(ISNUMBER(crossover_tokens_per_day),'
                              'TEXT(crossover_tokens_per_day,"#,##0"),crossover_tokens_per_day),"?")')
    assert preset.value == "traffic pilot"
    number = kit.text_formula("{crossover_tokens_per_day|choice}", {"crossover_tokens_per_day": 10**18})
    assert number.value == "1,000,000,000,000,000,000"  # Excel's TEXT, where "&" alone would give 1E+18


def test_a_custom_validation_rule_names_the_cell_it_validates():
    """Whole numbers beyond 2^31 are validated by a formula over the cell itself (hours.tokens, presets)."""
    target = io.BytesIO()
    book = kit.Book(target)
    sheet = book.sheet("Inputs")
    sheet.skip(4)
    rule = Allowed.of(SECTION["hours"].model_fields["tokens"]).validation()
    sheet.input("hours_tokens", "Tokens", 15.6e12, kind="count", unit="", note="", validation=rule)
    book.close()
    validation = openpyxl.load_workbook(target)["Inputs"].data_validations.dataValidation[0]
    assert str(validation.sqref) == "B5"
    assert validation.formula1 == "IF(ISNUMBER(B5),AND(B5>=1E+06,B5<=1E+18,B5=INT(B5)),FALSE)"


def test_one_table_of_kinds_for_the_workbook_and_the_html():
    """Every kind a table's sheet lays out or an input declares is in planner.units.KINDS, which gives both its
    number format and its HTML reading; worked readings of the figures the HTML shows."""
    from pydantic import BaseModel

    from planner.report.format import shown
    from planner.tables import TABLES
    from planner.units import KINDS

    def kinds_declared(section: type[BaseModel]) -> set[str]:
        found = set()
        for info in section.model_fields.values():
            found |= {(info.json_schema_extra or {}).get("kind")} - {None}
            nested = [a for a in getattr(info.annotation, "__args__", ()) + (info.annotation,)
                      if isinstance(a, type) and issubclass(a, BaseModel)]
            for model in nested:
                found |= kinds_declared(model)
        return found

    laid_out = {item.kind for table in TABLES for spec in vars(table.sheet.module).values()
                for item in (spec if isinstance(spec, list) else []) if isinstance(getattr(item, "kind", None), str)}
    declared = {kind for section in SECTION.values() for kind in kinds_declared(section)}
    assert {"gb", "money0", "hours", "flops"} <= laid_out and {"percent", "count", "tera"} <= declared
    assert laid_out | declared <= set(KINDS)
    assert shown(751.6e21, "flops") == "751.6" and shown(0.05e21, "flops") == "0.050"  # ZFLOP
    assert shown(26_673_882.98, "hours") == "26.67 M" and shown(527_772.4, "hours") == "0.53 M"
    assert (shown(0.4, "percent"), shown(52.567744512, "gb"), shown(15.6e12, "tera")) == ("40 %", "52.6", "15.6")
    assert (shown(1_055_545.2, "money0", "€"), shown(0.000_012_34, "money5", "$")) == ("€1,055,545", "$0.00001")
    assert (shown(2.5, "money", "CHF"), shown(True, "count"), shown(0, "bool")) == ("2.50 CHF", "yes", "no")
    assert (shown(8192, "count"), shown("never", "days")) == ("8,192", "never")


def test_text_lines_counts_as_textwrap_does():
    """A text as short as the column is one line without textwrap's regexes (half a workbook's texts): the count
    is textwrap's for short, long, blank, tabbed and multi-line texts alike."""
    import textwrap

    from planner.workbook.kit import text_lines

    texts = ["", " ", "a", "x" * 46, "x" * 47, "word " * 9, "a\tb", "\t" * 6, "one\ntwo", "no-break-" * 8,
             "Goodput per GPU (req/s)", "é" * 46,
             # words on single spaces (counted without textwrap): a word as long as the line, one longer, a space
             # at either end, two spaces, a hyphen, a non-breaking space
             "ab " * 30, " ".join(["x" * 46] * 3), "x" * 20 + " " + "y" * 60, " lead and trail " * 5,
             "two  spaces " * 8, "well-known words " * 6, "non\xa0breaking " * 8, "The seven words of a note " * 4]
    for text in texts:
        for width in (0.5, 10, 40, 41):
            assert text_lines(text, width) == (len(textwrap.wrap(text, max(1, int(width * 1.15)))) or 1), (text, width)
    assert text_lines("x" * 47, 40) == 2  # 46 characters a line at a width of 40


def test_a_column_chart_names_its_series_by_their_headings_and_finishes_alike():
    """One way to chart columns (Hours, Goodput, GPUs, Cost): each series named by its column's heading, the row
    labels as categories, the y axis from 0 with gridlines, the legend below, the title set."""
    import zipfile

    target = io.BytesIO()
    book = kit.Book(target)
    sheet = book.sheet("Day", [("", 12)] * 2)
    sheet.records([f"Hour {h}" for h in range(4)], [Column("demand", "Demand", template=lambda i: f"={i}*1",
                                                           kind="count")], [{"demand": i} for i in range(4)])
    place = sheet.places["demand"]
    assert sheet.heading_of("demand") == ["Day", place.row - 1, place.col]
    assert sheet.labels_of("demand") == ["Day", place.row, 0, place.last_row, 0]
    sheet.column_chart([(sheet.heading_of("demand"), sheet.labels_of("demand"), sheet.series("demand"), "#4472C4")],
                       title="Demand by hour", y_axis={"name": "GPUs", "num_format": "#,##0"})
    book.close()
    xml = zipfile.ZipFile(target).read("xl/charts/chart1.xml").decode()
    first, last = place.row + 1, place.last_row + 1  # A1 rows count from 1
    assert f"<c:f>Day!$B${first - 1}</c:f>" in xml  # the series' name: the heading cell
    assert f"<c:f>Day!$A${first}:$A${last}</c:f>" in xml and f"<c:f>Day!$B${first}:$B${last}</c:f>" in xml
    assert "Demand by hour" in xml and '<c:min val="0"/>' in xml and "<c:majorGridlines/>" in xml
    assert '<c:legendPos val="b"/>' in xml
