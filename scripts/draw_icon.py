"""Draw Chatterbox's brand icon: a speech bubble with three dots, as PNG files.

Run it from the repository root; it writes icon.png (256 px) and icon@2x.png
(512 px) into custom_components/chatterbox/brand/. Pure standard library.
"""

from pathlib import Path
import struct
import zlib

BRAND = Path("custom_components/chatterbox/brand")
BUBBLE = (3, 169, 244)  # Home Assistant blue
DOT = (255, 255, 255)


def _inside_rounded_rect(x: float, y: float, box: tuple[float, ...], r: float) -> bool:
    """Tell whether a point lies in a rectangle with rounded corners."""
    left, top, right, bottom = box
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r and left <= x <= right


type Point = tuple[float, float]


def _inside_triangle(x: float, y: float, a: Point, b: Point, c: Point) -> bool:
    """Tell whether a point lies in a triangle."""

    def side(p: tuple[float, float], q: tuple[float, float]) -> float:
        return (x - q[0]) * (p[1] - q[1]) - (p[0] - q[0]) * (y - q[1])

    d1, d2, d3 = side(a, b), side(b, c), side(c, a)
    return not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))


def _pixel(u: float, v: float) -> tuple[int, int, int, int]:
    """Colour a point of the unit square."""
    for cx in (0.3, 0.5, 0.7):
        if (u - cx) ** 2 + (v - 0.42) ** 2 <= 0.065**2:
            return (*DOT, 255)
    if _inside_rounded_rect(u, v, (0.06, 0.12, 0.94, 0.72), 0.16) or _inside_triangle(
        u, v, (0.22, 0.66), (0.44, 0.66), (0.16, 0.92)
    ):
        return (*BUBBLE, 255)
    return (0, 0, 0, 0)


def draw(size: int, samples: int = 4) -> bytes:
    """Render the icon at a size, anti-aliased by supersampling, as PNG bytes."""
    rows = bytearray()
    for y in range(size):
        rows.append(0)  # PNG filter: none
        for x in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    u = (x + (sx + 0.5) / samples) / size
                    v = (y + (sy + 0.5) / samples) / size
                    for i, c in enumerate(_pixel(u, v)):
                        acc[i] += c
            rows.extend(c // (samples * samples) for c in acc)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    BRAND.mkdir(parents=True, exist_ok=True)
    (BRAND / "icon.png").write_bytes(draw(256))
    (BRAND / "icon@2x.png").write_bytes(draw(512))
    print("wrote", *sorted(p.name for p in BRAND.glob("icon*.png")))
