"""Reading the status page as a person sees it: the text of each table's rows, by table id."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.texts: dict[str, str] = {}  # element id -> its text
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._ids: list[tuple[str, str, list[str]]] = []  # open elements with an id

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs).get("id")
        if tag == "table" and found:
            self._table = found
            self.tables[found] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []
        if found and tag != "table":
            self._ids.append((tag, found, []))

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None and self._row is not None:
            if self._row:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if self._ids and self._ids[-1][0] == tag:
            _tag, name, parts = self._ids.pop()
            self.texts[name] = "".join(parts).strip()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        for _tag, _name, parts in self._ids:
            parts.append(data)


def read_page(html: str) -> tuple[dict[str, list[list[str]]], dict[str, str]]:
    """(table id -> rows of cell texts, element id -> text) of a page's HTML."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return parser.tables, parser.texts
