"""What a notebook shows of a File, a Tensor, Records and a Diff
(``_repr_html_``): a summary, shapes, statistics by the library's kernels,
and a picture where a tensor looks like one (the library's pixels, as
``decode --picture`` draws them, written as a PNG inline). Nothing is
served or fetched: every string a file controls is escaped."""

from __future__ import annotations

import base64
import html
import struct
import zlib
from typing import Any

_STYLE = "font-family:monospace;border-collapse:collapse"
_CELL = "padding:1px 8px;text-align:left;border-bottom:1px solid #ddd"


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _table(rows: list[tuple[Any, ...]], head: tuple[str, ...] | None = None) -> str:
    out = [f'<table style="{_STYLE}">']
    if head:
        out.append("<tr>" + "".join(f'<th style="{_CELL}">{_e(h)}</th>' for h in head) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f'<td style="{_CELL}">{_e(c)}</td>' for c in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def png(width: int, height: int, channels: int, pixels: bytes) -> bytes:
    """A PNG of 8-bit grey, grey+alpha, RGB or RGBA rows."""
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    stride = width * channels
    raw = b"".join(b"\x00" + pixels[y * stride : (y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    head = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


# The largest picture shown inline (the command's pictures of big tensors
# are large; the notebook shows a thumbnail-sized one or none).
_MAX_PIXELS = 1 << 20


def _picture(t: Any) -> str:
    from . import _pbdecode

    try:
        p = _pbdecode.picture(t._doc, t._info["index"])
    except Exception:  # noqa: BLE001 - a picture is optional
        return ""
    if p is None:
        return ""
    w, h, ch, pixels, layout = p
    if w * h > _MAX_PIXELS or w == 0 or h == 0:
        return ""
    data = base64.b64encode(png(w, h, ch, pixels)).decode("ascii")
    scale = max(1, min(8, 256 // max(w, h)))
    return (
        f'<div><img alt="{_e(t.name)}" title="{_e(layout)}" src="data:image/png;base64,{data}" '
        f'style="image-rendering:pixelated;width:{w * scale}px;height:{h * scale}px"/></div>'
    )


def _stats_rows(t: Any) -> list[tuple[Any, ...]]:
    try:
        s = t.stats()
    except Exception:  # noqa: BLE001 - values may be unavailable
        return []
    return [(k, s[k]) for k in ("count", "min", "max", "mean", "std", "nan", "zeros") if k in s and s[k] is not None]


def tensor_html(t: Any) -> str:
    shape = "?" if t.shape is None else "\u00d7".join(map(str, t.shape)) or "scalar"
    rows = [("name", t.name), ("type", t.data_type), ("shape", shape), ("role", t.role), ("storage", t.storage), ("path", t.path)]
    body = _table(rows) + _table(_stats_rows(t)) + _picture(t)
    return f"<div><b>pbdecode.Tensor</b>{body}</div>"


def file_html(f: Any) -> str:
    if f.closed:
        return f"<div><b>pbdecode.File</b> {_e(f.format)} (closed)</div>"
    rows = [("format", f.format), ("type", f.type or "")]
    for k, v in f.summary.items():
        rows.append((k, v))
    tensors = list(f.tensors.values())
    shown = tensors[:20]
    trows = [(t.name, t.data_type, "?" if t.shape is None else list(t.shape), t.storage) for t in shown]
    more = f"<div>and {len(tensors) - len(shown)} more</div>" if len(tensors) > len(shown) else ""
    tt = _table(trows, ("tensor", "type", "shape", "storage")) + more if tensors else ""
    return f"<div><b>pbdecode.File</b>{_table(rows)}{tt}</div>"


def records_html(r: Any) -> str:
    if r._other:
        return f"<div><b>pbdecode.Records</b>: {len(r._sources)} file(s) of other payloads</div>"
    rows: list[tuple[Any, ...]] = []
    seen: dict[tuple[str, bool], list[Any]] = {}
    total = 0
    for t in r._tables:
        total += t.rows
        for i, (name, lst, kind) in enumerate(t.columns()):
            bits = t.buffers(i)[0]
            import numpy as np

            present = int(np.unpackbits(bits, bitorder="little", count=t.rows).sum())
            s = seen.setdefault((name, lst), [kind, 0])
            s[0] = s[0] or kind
            s[1] += present
    for (name, lst), (kind, present) in seen.items():
        rows.append((name + (" (list)" if lst else ""), kind or "none", total - present))
    fault = f"<div>fault: {_e(r.fault)}</div>" if r.fault else ""
    return f"<div><b>pbdecode.Records</b>: {total} records{_table(rows, ('feature', 'kind', 'missing'))}{fault}</div>"


def diff_html(d: Any) -> str:
    state = "passed" if d.passed else "failed"
    return f"<div><b>pbdecode.Diff</b>: {state}, {d.differing} of {d.compared} differ<pre>{_e(d.report)}</pre></div>"
