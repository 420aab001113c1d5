"""One pass over an xlsx file's XML (planner/xlsx.py) reads what two openpyxl loads read (formulas, cached values,
their types, defined names, sheet order), from XlsxWriter's files and from the forms other applications write
(shared formulas, inline strings, cells without a reference); a damaged or hostile file is one WorkbookError."""

from __future__ import annotations

import datetime as dt
import zipfile

import openpyxl
import pytest
from openpyxl.utils.datetime import to_excel
from click.testing import CliRunner

from planner import xlsx
from planner.cli import main
from planner.engine import compute
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.test_goodput import edge_scenario


@pytest.mark.long
def serial(value):
    """A cell openpyxl reads as a date (a date number format: the calendar's months) as the serial number it holds,
    as planner/xlsx.py reads it."""
    return to_excel(value) if isinstance(value, dt.datetime) else value


@pytest.mark.parametrize("example", ["default", "benchmark logs"])
def test_the_reader_reads_what_openpyxl_reads(example, tmp_path):
    """The default workbook, and one with a (small) Requests sheet."""
    path = tmp_path / "w.xlsx"
    scenario = ROOT / "examples" / "default.yaml" if example == "default" else edge_scenario(tmp_path)
    build(compute(load_scenario(scenario)), str(path))
    book = xlsx.read(path)
    formulas, cached = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    assert book.sheets == formulas.sheetnames
    assert book.formulas() == {(ws.title, c.coordinate): c.value for ws in formulas.worksheets
                               for row in ws.iter_rows() for c in row if c.data_type == "f"}
    values = {(ws.title, c.coordinate): c.value for ws in cached.worksheets for row in ws.iter_rows() for c in row
              if c.value is not None}
    dates = {key for key, value in values.items() if isinstance(value, dt.datetime)}  # openpyxl: to the microsecond
    read = book.values()
    for key in dates:
        assert read[key] == pytest.approx(serial(values[key]), abs=1e-6), key  # within a tenth of a second
    assert {k: v for k, v in read.items() if k not in dates} == {k: v for k, v in values.items() if k not in dates}
    assert {key: type(v) for key, v in read.items() if key not in dates} == \
        {key: type(v) for key, v in values.items() if key not in dates}
    assert book.names == {name: defined.attr_text for name, defined in formulas.defined_names.items()}
    for name, defined in formulas.defined_names.items():
        assert book.destinations(name) == [(s, ref.replace("$", "")) for s, ref in defined.destinations], name


SHEET = """<?xml version="1.0" encoding="UTF-8"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<sheetData>{rows}</sheetData></worksheet>"""


def workbook_with(tmp_path, rows: str, *, sheet: str = SHEET, strings: str | None = None):
    """A minimal xlsx whose one sheet, "S", holds `rows`."""
    path = tmp_path / "made.xlsx"
    main_ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')
        z.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                                  f'<Relationship Id="rId1" Type="{rel_ns}/officeDocument" Target="xl/workbook.xml"/>'
                                  "</Relationships>")
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{main_ns}" xmlns:r="{rel_ns}"><sheets>'
                                      f'<sheet name="S" sheetId="1" r:id="rId1"/></sheets><definedNames>'
                                      f"<definedName name=\"total\">'S'!$B$2</definedName>"
                                      f'<definedName name="_xlnm.Print_Area" localSheetId="0">S!$A$1</definedName>'
                                      f"</definedNames></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   f'<Relationship Id="rId1" Type="{rel_ns}/worksheet" Target="worksheets/sheet1.xml"/>'
                   f'<Relationship Id="rId2" Type="{rel_ns}/sharedStrings" Target="/xl/sharedStrings.xml"/>'
                   "</Relationships>")
        z.writestr("xl/worksheets/sheet1.xml", sheet.format(rows=rows))
        if strings is not None:
            z.writestr("xl/sharedStrings.xml", f'<sst xmlns="{main_ns}">{strings}</sst>')
    return path


def test_the_forms_other_applications_write(tmp_path):
    """Shared formulas (Excel), inline and rich shared strings, booleans, errors, cells and rows without a reference;
    workbook-level names only."""
    path = workbook_with(tmp_path, (
        '<row r="1"><c r="A1"><f t="shared" ref="A1:A3" si="0">B1*2</f><v>2</v></c><c r="B1"><v>1</v></c></row>'
        '<row r="2"><c r="A2"><f t="shared" si="0"/><v>4</v></c><c r="B2"><v>2.5</v></c></row>'
        '<row><c><f t="shared" si="0"/><v>6</v></c><c t="inlineStr"><is><t>inline</t></is></c>'
        '<c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c></row>'),
        strings='<si><t>plain</t></si><si><r><t>ri</t></r><r><t>ch</t></r><rPh><t>x</t></rPh></si>')
    book = xlsx.read(path)
    assert book.formulas() == {("S", "A1"): "=B1*2", ("S", "A2"): "=B2*2", ("S", "A3"): "=B3*2"}
    assert book.values() == {("S", "A1"): 2, ("S", "B1"): 1, ("S", "A2"): 4, ("S", "B2"): 2.5, ("S", "A3"): 6,
                             ("S", "B3"): "inline", ("S", "C3"): "plain", ("S", "D3"): "rich", ("S", "E3"): True,
                             ("S", "F3"): "#N/A"}
    assert book.names == {"total": "'S'!$B$2"} and book.destinations("total") == [("S", "B2")]
    assert book.block("S", "A2:B3") == [[("A2", book.cell("S", "A2")), ("B2", book.cell("S", "B2"))],
                                        [("A3", book.cell("S", "A3")), ("B3", book.cell("S", "B3"))]]


PART = "xl/worksheets/sheet1.xml (the sheet S): "


@pytest.mark.parametrize("rows, sheet, message", [
    ('<row r="1"><c r="XFE1"><v>1</v></c></row>', SHEET, PART + "the cell XFE1 lies beyond Excel's grid (XFD1048576)"),
    ('<row r="1"><c r="A1048577"><v>1</v></c></row>', SHEET, PART + "the cell A1048577 lies beyond Excel's grid"),
    ('<row r="1"><c r="A1"><v>1</v></c>', SHEET, PART + "its XML does not parse"),
    ('<row r="1"><c r="A1"><v>one</v></c></row>', SHEET, PART + "the cell A1 holds 'one'"),
    ('<row r="1"><c r="A1" t="s"><v>7</v></c></row>', SHEET, PART + "the cell A1 holds '7'"),
    ('<row r="x"><c><v>1</v></c></row>', SHEET, "a damaged xlsx workbook: " + PART + "invalid literal"),
    ("", '<!DOCTYPE x [<!ENTITY a "aaaa">]><worksheet>&a;{rows}</worksheet>', PART + "its XML declares entities"),
])
def test_a_damaged_or_hostile_workbook_is_one_line_and_exit_2(tmp_path, rows, sheet, message):
    path = workbook_with(tmp_path, rows, sheet=sheet)
    with pytest.raises(xlsx.WorkbookError, match=message.replace("(", r"\(").replace(")", r"\)")):
        xlsx.read(path)
    for command in (["import", str(path)], ["audit", str(path), "--no-recalc"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
