#!/usr/bin/env python3
"""Writes Chess Gold's piece set: static/pieces/{kind}-{white|black}.svg.

The drawings are the project's own, made for this file: simple Staunton-like silhouettes on a
45x45 canvas for the FIDE pieces and the Grunt, and for Electrum's fairy pieces distinct
silhouettes with gold or silver accents plus a small badge in the top corner that maps their
moves (lines: slides; dots: steps and leaps, at their distance; forward is up for White and down
for Black).

Run it again after changing a drawing: `python3 scripts/pieces.py`.
"""

from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "static" / "pieces"

COLORS = {
    "white": {"fill": "#fbfaf6", "line": "#1f1d1b", "detail": "#1f1d1b", "shade": "#e4e0d6"},
    "black": {"fill": "#2b2825", "line": "#0b0a09", "detail": "#ece8df", "shade": "#45403a"},
}
ACCENTS = {
    "gold": {"fill": "#e9b625", "line": "#7a5700", "mark": "#5c4100", "light": "#ffe58a"},
    "silver": {"fill": "#a7b4c3", "line": "#3b4756", "mark": "#2f3a46", "light": "#f1f5f9"},
}

# ---------------------------------------------------------------- shared parts

BASE = "M 10.5,39.5 C 10.5,37.2 12,36 14,36 L 31,36 C 33,36 34.5,37.2 34.5,39.5 Z"
BASE_WIDE = "M 9.5,39.5 C 9.5,37.2 11,36 13,36 L 32,36 C 34,36 35.5,37.2 35.5,39.5 Z"


def body(d):
    return ("body", d)


def detail(d, width=1.3):
    return ("detail", d, width)


def accent(d):
    return ("accent", d)


def circle(cx, cy, r, role="body"):
    return ("circle", role, cx, cy, r)


# ---------------------------------------------------------------- FIDE pieces and the Grunt

PAWN = [
    body(BASE),
    body("M 15,36.5 C 15.5,31 18.5,27.5 19.6,23 L 17.6,23 C 16.6,21.4 17.6,19.4 19.6,19.4 "
         "L 25.4,19.4 C 27.4,19.4 28.4,21.4 27.4,23 L 25.4,23 C 26.5,27.5 29.5,31 30,36.5 Z"),
    circle(22.5, 12.8, 5.6),
]

ROOK = [
    body(BASE_WIDE),
    body("M 12,36.2 L 33,36.2 L 31,31.5 L 14,31.5 Z"),
    body("M 14.6,31.5 L 30.4,31.5 L 29.4,17.5 L 15.6,17.5 Z"),
    body("M 12.5,17.5 L 32.5,17.5 L 32.5,9 L 28.6,9 L 28.6,12 L 24.5,12 L 24.5,9 L 20.5,9 L 20.5,12 "
         "L 16.4,12 L 16.4,9 L 12.5,9 Z"),
    detail("M 15.6,20.5 L 29.4,20.5 M 15,28.5 L 30,28.5"),
]

BISHOP = [
    body("M 10.5,39.5 C 10.5,37.4 12,36.4 14,36.4 C 18,36.4 20.5,37.4 22.5,38.4 C 24.5,37.4 27,36.4 31,36.4 "
         "C 33,36.4 34.5,37.4 34.5,39.5 Z"),
    body("M 15.8,36 L 29.2,36 L 28.2,31.5 L 16.8,31.5 Z"),
    body("M 17.2,31.5 C 13.3,28.2 13,22.6 16.6,17.6 C 18.4,15.1 20.6,13.2 22.5,12 "
         "C 24.4,13.2 26.6,15.1 28.4,17.6 C 32,22.6 31.7,28.2 27.8,31.5 Z"),
    circle(22.5, 9.2, 2.8),
    detail("M 26.2,17.6 L 20.6,25 M 19,28.6 L 26,28.6", 1.5),
]

KNIGHT = [
    body(BASE),
    body("M 13.5,36.5 C 13,32 14.4,29 16.6,26.6 C 18.6,24.5 20.2,22.5 20.2,20.2 "
         "C 18.6,21.3 16.8,21.8 15.6,22.6 C 14.6,23.9 13.2,24.9 11.6,24.5 C 9.8,24 9.3,22.4 10.1,20.7 "
         "C 11.4,17.6 13.4,14.8 15.6,12.5 C 16.3,10.4 17.3,8.8 18.7,8 L 19,5 L 21.4,7.2 L 23.6,5.3 L 24.2,8.2 "
         "C 28.6,9.4 31.4,13.4 32,19 C 32.6,25 31.4,30.5 32,36.5 Z"),
    detail("M 24.3,8.6 C 27.8,11.2 29.2,15.6 29,20.5", 1.2),
    circle(18.6, 13.4, 1.25, "eye"),
    circle(11.9, 21.4, 0.75, "eye"),
]

QUEEN_TIPS = [(8.6, 14.5), (15.2, 11.4), (22.5, 10.2), (29.8, 11.4), (36.4, 14.5)]
QUEEN = [
    body(BASE),
    body("M 12.4,33.5 L 8.6,14.5 L 15,25.5 L 15.2,11.4 L 19.6,24 L 22.5,10.2 L 25.4,24 L 29.8,11.4 "
         "L 30,25.5 L 36.4,14.5 L 32.6,33.5 Z"),
    body("M 12.4,33.4 C 18,31.8 27,31.8 32.6,33.4 L 33,36.4 C 27,34.8 18,34.8 12,36.4 Z"),
    *[circle(x, y, 2.2) for x, y in QUEEN_TIPS],
]

KING = [
    body(BASE),
    body("M 12.4,34.5 C 9,30.5 7.2,25.8 9.6,22.4 C 12.6,18.6 18.2,20.3 22.5,25 "
         "C 26.8,20.3 32.4,18.6 35.4,22.4 C 37.8,25.8 36,30.5 32.6,34.5 Z"),
    body("M 22.5,25.4 C 20.2,21.6 19.6,18.2 22.5,15.4 C 25.4,18.2 24.8,21.6 22.5,25.4 Z"),
    body("M 12.2,34.3 C 18,32.7 27,32.7 32.8,34.3 L 33,36.5 C 27,35 18,35 12,36.5 Z"),
    ("cross", "M 22.5,5.5 L 22.5,14.5 M 19,9.2 L 26,9.2"),
]

GRUNT = [
    body(BASE_WIDE),
    body("M 13.6,36.4 C 13.8,30 15.4,25.4 18,22.2 L 27,22.2 C 29.6,25.4 31.2,30 31.4,36.4 Z"),
    circle(22.5, 17.8, 4.2),
    body("M 15.8,15.6 C 15.8,9.6 18.9,6.6 22.5,6.6 C 26.1,6.6 29.2,9.6 29.2,15.6 L 31.6,16.2 "
         "L 31.4,18 L 13.6,18 L 13.4,16.2 Z"),
    detail("M 18.6,26.6 L 22.5,29.6 L 26.4,26.6 M 18.6,30.6 L 22.5,33.6 L 26.4,30.6", 1.5),
]

# ---------------------------------------------------------------- Electrum's fairy pieces

GOLDROOK = [
    body(BASE_WIDE),
    accent("M 12,36.2 L 33,36.2 L 31,31.5 L 14,31.5 Z"),
    body("M 14.6,31.5 L 30.4,31.5 L 29.4,18 L 15.6,18 Z"),
    accent("M 12.5,18 L 32.5,18 L 32.5,13.5 L 12.5,13.5 Z"),
    body("M 12.5,13.5 L 32.5,13.5 L 32.5,9.5 L 28.6,9.5 L 28.6,11.5 L 24.5,11.5 L 24.5,9.5 L 20.5,9.5 "
         "L 20.5,11.5 L 16.4,11.5 L 16.4,9.5 L 12.5,9.5 Z"),
    detail("M 18,28.5 L 22.5,24 L 27,28.5", 1.6),
]

NITAN = [
    accent(BASE),
    body(KNIGHT[1][1]),
    accent("M 24.2,8.2 C 28.6,9.4 31.4,13.4 32,19 C 32.6,25 31.4,30.5 32,36.5 L 28.6,36.5 "
           "C 28,30.5 29.4,25 28.8,19.5 C 28.4,15 26.8,11.8 23.8,10 Z"),
    circle(18.6, 13.4, 1.25, "eye"),
    circle(11.9, 21.4, 0.75, "eye"),
]

GOLDMITRE = [
    body(BISHOP[0][1]),
    accent("M 15.8,36 L 29.2,36 L 28.2,31.5 L 16.8,31.5 Z"),
    body("M 16.4,31.5 L 15,19 L 22.5,9.5 L 30,19 L 28.6,31.5 Z"),
    accent("M 21,31.5 L 21,13 L 22.5,11 L 24,13 L 24,31.5 Z"),
    accent("M 15.7,24.5 L 29.3,24.5 L 29.1,27.6 L 15.9,27.6 Z"),
    ("cross_accent", "M 22.5,3.8 L 22.5,9.5 M 20.4,5.8 L 24.6,5.8"),
]

GOLDRIDER = [
    body(BASE_WIDE),
    body("M 13,36.2 L 32,36.2 L 30.4,32 L 14.6,32 Z"),
    body("M 15.4,32 L 29.6,32 L 28.2,19.5 L 16.8,19.5 Z"),
    accent("M 14.2,19.5 L 30.8,19.5 L 29.8,16.5 L 15.2,16.5 Z"),
    accent("M 16.4,16.5 C 16.4,12.4 19.4,10 22.5,6.5 C 25.6,10 28.6,12.4 28.6,16.5 Z"),
    detail("M 22.5,22.5 L 22.5,29.5 M 19,26 L 26,26", 1.6),
]

SILVERRIDER = [
    body(BISHOP[0][1]),
    accent("M 15.8,36 L 29.2,36 L 28.2,31.5 L 16.8,31.5 Z"),
    body("M 17,31.5 C 14,28 14.2,22.4 17,18 C 18.7,15.4 20.6,13.6 22.5,12.6 "
         "C 24.4,13.6 26.3,15.4 28,18 C 30.8,22.4 31,28 28,31.5 Z"),
    accent("M 19.6,12.8 L 22.5,4.2 L 25.4,12.8 L 23.6,12.2 L 22.5,14.6 L 21.4,12.2 Z"),
    detail("M 18.6,27 L 22.5,21.5 L 26.4,27", 1.6),
]

SILVERBISHOP = [
    body(BISHOP[0][1]),
    accent("M 15.8,36 L 29.2,36 L 28.2,31.5 L 16.8,31.5 Z"),
    body(BISHOP[2][1]),
    circle(22.5, 9.2, 2.8, "accent"),
    detail("M 26.2,17.6 L 20.6,25", 1.5),
    accent("M 16.3,27.2 L 28.7,27.2 L 28.2,29.8 L 16.8,29.8 Z"),
]

CAMAN = [
    body(BASE),
    # A camel's bust: a long neck bent forward, a drooping muzzle and a hump behind the neck.
    body("M 14,36.5 C 14.5,31 15.6,26 16.2,21.6 C 16.5,19.2 16,17.2 14.4,16 L 9.8,15.4 "
         "C 7.6,15.2 6.6,13.4 7.6,11.9 C 8.7,10.1 10.7,9.1 12.9,8.6 L 13.7,6.4 L 15.5,8.2 "
         "C 17.9,8.9 19.3,10.7 19.9,13.3 C 20.5,15.9 21.1,17.5 22.6,18.3 "
         "C 23.6,14 26,11.4 28.5,11.5 C 31.4,11.7 33.2,15.2 33.3,19.6 "
         "C 33.5,24.8 32.1,30.4 32.5,36.5 Z"),
    accent("M 23.5,17.2 C 24.9,14.2 26.8,13 28.6,13.1 C 30.7,13.3 31.9,15.6 32.1,18.4 L 32.1,22.4 "
           "C 29.3,20.8 26.2,20.4 23.1,21.4 Z"),
    accent("M 15.8,25.6 C 20.2,27 26.4,27.2 32.3,26 L 32.4,29.2 C 26.4,30.4 20,30.2 15.2,28.8 Z"),
    detail("M 8,13.6 L 9.6,13.4 M 17.4,18.6 C 18.2,21.6 18.4,24 18,25.6", 1.1),
    circle(12.1, 11.6, 1.15, "eye"),
]

SILVERWING = [
    body(BASE),
    body("M 17,36.2 L 28,36.2 L 26.8,31.5 L 18.2,31.5 Z"),
    body("M 19.6,31.5 C 16.4,28.4 13.8,24.4 12.8,19.6 C 12,15.8 12.8,11.6 15,8.2 "
         "C 20,9.2 25.6,12 29.8,16.8 C 32.6,20 33.8,24.2 33.4,28.6 C 31.8,30.6 28.8,31.6 25.4,31.5 Z"),
    accent("M 15,8.2 C 20,9.2 25.6,12 29.8,16.8 C 32.6,20 33.8,24.2 33.4,28.6 "
           "C 31.4,25.6 28.6,22.8 25.2,21 C 28,19.4 26.6,16.4 23.4,16.6 C 24.4,14 21.4,12.2 18.8,13.4 "
           "C 18.6,11 17,9.4 15,8.2 Z"),
    detail("M 16,14.8 C 18.6,19.6 21.8,24 25.6,27.6 M 15.4,20.6 C 17.4,24 19.6,27 22.2,29.6", 1.3),
]

# Moves for the badge, for White (dy > 0 is forward). ("slide"|"step"|"leap", dx, dy)
ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (-1, 1), (1, -1), (-1, -1)]
FWD_DIAG = [(1, 1), (-1, 1)]
KNIGHT_LEAPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
CAMEL_LEAPS = [(1, 3), (3, 1), (3, -1), (1, -3), (-1, -3), (-3, -1), (-3, 1), (-1, 3)]

MOVES = {
    "goldrook": [("slide", *v) for v in ORTH] + [("step", *v) for v in FWD_DIAG],
    "nitan": [("leap", *v) for v in KNIGHT_LEAPS] + [("leap", 1, 3), ("leap", -1, 3)],
    "goldmitre": [("slide", *v) for v in FWD_DIAG] + [("step", *v) for v in ORTH],
    "goldrider": [("slide", *v) for v in ORTH + FWD_DIAG],
    "silverrider": [("slide", *v) for v in DIAG + [(0, 1)]],
    "silverbishop": [("slide", *v) for v in DIAG] + [("step", 0, 1)],
    "caman": [("leap", *v) for v in CAMEL_LEAPS] + [("leap", 1, 2), ("leap", -1, 2)],
    "silverwing": [("slide", 0, 1)] + [("step", *v) for v in DIAG],
}

PIECES = {
    "pawn": (PAWN, None),
    "knight": (KNIGHT, None),
    "bishop": (BISHOP, None),
    "rook": (ROOK, None),
    "queen": (QUEEN, None),
    "king": (KING, None),
    "grunt": (GRUNT, None),
    "goldrook": (GOLDROOK, "gold"),
    "nitan": (NITAN, "gold"),
    "goldmitre": (GOLDMITRE, "gold"),
    "goldrider": (GOLDRIDER, "gold"),
    "silverrider": (SILVERRIDER, "silver"),
    "silverbishop": (SILVERBISHOP, "silver"),
    "caman": (CAMAN, "silver"),
    "silverwing": (SILVERWING, "silver"),
}


def badge(kind, color, metal):
    """A small disc mapping the piece's moves, in the top corner opposite the piece's face."""
    a = ACCENTS[metal]
    cx, cy, r = 37.2, 7.8, 7.3
    unit = 1.95
    sign = -1 if color == "white" else 1  # forward is up for White, down for Black
    out = [
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="#fffdf6" stroke="{a["line"]}" stroke-width="1.1"/>',
        f'<circle cx="{cx}" cy="{cy}" r="{r - 1.1}" fill="none" stroke="{a["fill"]}" stroke-width="1.3"/>',
    ]
    marks = []
    for how, dx, dy in MOVES[kind]:
        x, y = dx, sign * dy
        if how == "slide":
            length = (x * x + y * y) ** 0.5
            ex, ey = cx + x / length * (r - 2.2), cy + y / length * (r - 2.2)
            marks.append(f'<line x1="{cx}" y1="{cy}" x2="{ex:.2f}" y2="{ey:.2f}"/>')
        elif how == "step":
            marks.append(f'<circle cx="{cx + x * unit:.2f}" cy="{cy + y * unit:.2f}" r="1.05" stroke="none" '
                         f'fill="{a["mark"]}"/>')
        else:
            s = unit * 0.86
            marks.append(f'<circle cx="{cx + x * s:.2f}" cy="{cy + y * s:.2f}" r="0.85" fill="{a["mark"]}" '
                         f'stroke="none"/>')
    out.append(f'<g stroke="{a["mark"]}" stroke-width="1.15" stroke-linecap="round">{"".join(marks)}</g>')
    out.append(f'<rect x="{cx - 0.9}" y="{cy - 0.9}" width="1.8" height="1.8" fill="{a["line"]}"/>')
    return "".join(out)


def render(kind, color):
    parts, metal = PIECES[kind]
    c = COLORS[color]
    a = ACCENTS[metal] if metal else None
    out = []
    for part in parts:
        role = part[0]
        if role == "body":
            out.append(f'<path d="{part[1]}" fill="{c["fill"]}" stroke="{c["line"]}"/>')
        elif role == "accent":
            out.append(f'<path d="{part[1]}" fill="{a["fill"]}" stroke="{a["line"]}"/>')
        elif role == "detail":
            out.append(f'<path d="{part[1]}" fill="none" stroke="{c["detail"]}" stroke-width="{part[2]}"/>')
        elif role == "cross":
            out.append(f'<path d="{part[1]}" fill="none" stroke="{c["line"]}" stroke-width="4.2"/>')
            out.append(f'<path d="{part[1]}" fill="none" stroke="{c["fill"]}" stroke-width="1.8"/>')
        elif role == "cross_accent":
            out.append(f'<path d="{part[1]}" fill="none" stroke="{a["line"]}" stroke-width="3.6"/>')
            out.append(f'<path d="{part[1]}" fill="none" stroke="{a["fill"]}" stroke-width="1.6"/>')
        elif role == "circle":
            _, sub, cx, cy, r = part
            if sub == "eye":
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{c["detail"]}" stroke="none"/>')
            elif sub == "accent":
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{a["fill"]}" stroke="{a["line"]}"/>')
            else:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{c["fill"]}" stroke="{c["line"]}"/>')
    if metal:
        out.append(badge(kind, color, metal))
    title = f"{color} {kind}"
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 45 45" width="45" height="45">'
        f"<title>{title}</title>"
        f'<g stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round">{"".join(out)}</g></svg>\n'
    )


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for kind in PIECES:
        for color in COLORS:
            (OUT / f"{kind}-{color}.svg").write_text(render(kind, color))
    print(f"wrote {len(PIECES) * len(COLORS)} pieces to {OUT}")


if __name__ == "__main__":
    main()
