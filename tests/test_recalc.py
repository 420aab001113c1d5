"""The recalculation backends themselves (planner/recalc.py): LibreOffice kept running answers call after call
without starting again, waits for every conversion of a call before it returns, comes back when it dies; both
applications give one file's error to that file alone; values come back typed from the CSV."""

from __future__ import annotations

import os
import shutil
import signal
import time
import zipfile

import pytest

from planner import recalc, xlsx


def test_csv_fields_come_back_typed():
    values: dict = {}
    recalc._sheet_values(values, "S", '"42",42,TRUE,"TRUE",1.5E+021,40%,"",,"a,b ""q""\nline"\n"#DIV/0!",-0.000001\n')
    assert values == {("S", "A1"): "42", ("S", "B1"): 42, ("S", "C1"): True, ("S", "D1"): "TRUE",
                      ("S", "E1"): 1.5e21, ("S", "F1"): 0.4, ("S", "G1"): "", ("S", "I1"): 'a,b "q"\nline',
                      ("S", "A2"): "#DIV/0!", ("S", "B2"): -0.000001}
    shifted: dict = {}  # Gnumeric writes a sheet's used range from its first used row and column
    recalc._sheet_values(shifted, "S", ",x\n2,\n", first_row=3, first_column=2)
    assert shifted == {("S", "C3"): "x", ("S", "B4"): 2}
    with pytest.raises(ValueError):
        list(recalc._rows('a"b,c\n'))


def test_gnumeric_csv_starts_where_each_sheet_holds_its_first_value(tmp_path):
    """Gnumeric writes a sheet's used range: the first row and the first column holding a value or a formula, found
    in the XML (a styled empty cell does not count), or from the cells read where a cell lacks its reference."""
    import xlsxwriter

    path = tmp_path / "used.xlsx"
    book = xlsxwriter.Workbook(str(path))
    used, full = book.add_worksheet("Used"), book.add_worksheet("Full")
    used.write_blank("A1", None, book.add_format({"bold": True}))  # styled, empty
    used.write("D3", "x")
    used.write_formula("C7", "=1+1", None, 2)
    full.write("A1", 1)
    book.close()
    job = recalc._Job(0, xlsx.read(path, cells=False), path)
    assert recalc._origins(job) == {"Used": (3, 3), "Full": (1, 1)}
    without = tmp_path / "without-references.xlsx"  # a writer may leave r out: the cell is the row's next one
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(without, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item, data.replace(b'<c r="D3"', b"<c") if item.filename.endswith("sheet1.xml") else data)
    assert recalc._origins(recalc._Job(0, xlsx.read(without, cells=False), without)) == {"Used": (3, 1), "Full": (1, 1)}


@pytest.fixture(scope="session")
def workbooks(default_workbook, tmp_path_factory):
    """Twenty copies of the session's default workbook (conftest)."""
    folder = tmp_path_factory.mktemp("workbooks")
    paths = [folder / f"w{i:02d}.xlsx" for i in range(20)]
    for path in paths:
        shutil.copy(default_workbook, path)
    return paths


@pytest.mark.spreadsheet
def test_a_forwarded_call_returns_when_every_conversion_is_done(libreoffice, workbooks, tmp_path):
    """Twenty workbooks in one call to the running LibreOffice: when the call returns, every sheet of every one is
    written, and nothing changes afterwards; it was the running instance that converted them. The workbooks are
    copies as `recalculate` makes them (without print titles: half the time)."""
    libreoffice.recalculate(workbooks[:1])  # started and warmed up
    starts = libreoffice.starts
    copies = []
    for path in workbooks:
        copies.append(tmp_path / path.name)
        recalc._poisoned_copy(xlsx.read(path, cells=False), copies[-1])
    out = tmp_path / "out"
    libreoffice.convert(copies, out)
    written = {path.name: path.read_bytes() for path in out.iterdir()}
    sheets = {path.stem: len(xlsx.read(path, cells=False).sheets) for path in workbooks}
    assert len(written) == sum(sheets.values())
    for stem, count in sheets.items():
        assert len([name for name in written if name.startswith(stem + "-")]) == count, stem
    time.sleep(2)
    assert {path.name: path.read_bytes() for path in out.iterdir()} == written
    assert libreoffice.running and libreoffice.starts == starts


@pytest.mark.spreadsheet
def test_on_three_cores_two_libreoffice_instances_share_a_call_and_say_progress_in_order(libreoffice, workbooks,
                                                                                          monkeypatch):
    """What `planner verify` of many workbooks runs on a larger machine (on 2 cores one instance: the other core
    builds the expected workbooks): every other workbook to each instance, progress said in file order. (The
    running `libreoffice` is not used: asked for, it makes LibreOffice required.)"""
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    instances, said = set(), []
    convert = recalc.LibreOffice.convert

    def counted(self, paths, out, **options):
        instances.add(id(self))
        return convert(self, paths, out, **options)

    monkeypatch.setattr(recalc.LibreOffice, "convert", counted)
    with recalc.LibreOffice() as app:
        found = app.recalculate(workbooks[:4], progress=said.append)
    assert len(instances) == 2 and said == [0, 1, 2, 3]
    assert all(isinstance(values, dict) for values in found) and found[0] == found[3]


@pytest.mark.spreadsheet
def test_libreoffice_keeps_running_and_comes_back_when_it_dies(libreoffice, workbooks):
    libreoffice.recalculate(workbooks[:1])
    starts = libreoffice.starts
    for path in workbooks[1:4]:
        [values] = libreoffice.recalculate([path])
        assert isinstance(values, dict)
    assert libreoffice.running and libreoffice.starts == starts  # one instance answered every call
    os.killpg(libreoffice._server.pid, signal.SIGKILL)
    libreoffice._server.wait()
    [values] = libreoffice.recalculate(workbooks[4:5])
    assert isinstance(values, dict) and libreoffice.starts == starts + 1


@pytest.mark.spreadsheet
def test_one_bad_file_gets_its_own_error_in_both_applications(spreadsheet, workbooks, tmp_path):
    text, foreign = tmp_path / "text.xlsx", tmp_path / "foreign.xlsx"
    text.write_text("not a workbook")
    with zipfile.ZipFile(workbooks[0]) as zin, zipfile.ZipFile(foreign, "w") as zout:  # its canary's name gone
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item, data.replace(b"recalc_canary", b"something_else"))
    found = spreadsheet.recalculate([text, workbooks[0], foreign])
    assert isinstance(found[0], recalc.WorkbookError) and "not an xlsx workbook" in str(found[0])
    assert isinstance(found[1], dict) and len(found[1]) > 1000
    assert str(found[2]) == "not a planner workbook: it has no defined name recalc_canary"
