"""Presentation mode: sidebar hidden, larger fonts, a light or dark theme that keeps colour
scales readable.

The CSS is built only from constants and numbers in this module (never from user strings) and
is injected with ``st.markdown(..., unsafe_allow_html=True)`` — the one place clustlens does so.
Plotly figures do not follow page CSS, so :func:`style_figure` restyles a figure for the theme
(background, text colour, and for dark backgrounds a sequential scale whose low end is dark, so
"few" stays the least visible colour).

Wiring (app.py): call :func:`controls` inside the sidebar and :func:`apply` once per run before
``nav.run()``; views pass their figures through :func:`style_figure` (a no-op when off).
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

K_ON = "presentation_mode"
K_THEME = "presentation_theme"
K_SCALE = "presentation_font_scale"
THEMES = ("light", "dark")


@dataclass(frozen=True)
class Palette:
    background: str
    surface: str
    text: str
    muted: str
    grid: str
    #: sequential scale for counts: low end close to the background, high end strong
    sequential: str


PALETTES = {
    "light": Palette("#ffffff", "#f3f4f6", "#111827", "#4b5563", "#e5e7eb", "Blues"),
    # Blues on a dark page puts "zero" at near-white, the brightest colour on screen; a scale
    # whose low end is dark keeps "few" the least visible. Cividis is also colour-blind safe.
    "dark": Palette("#0f172a", "#1e293b", "#f1f5f9", "#cbd5e1", "#334155", "Cividis"),
}
LIGHT_SCALES = {"Blues", "Greens", "Greys", "Purples", "Oranges", "Reds", "YlGnBu", "OrRd"}


@dataclass(frozen=True)
class Settings:
    on: bool = False
    theme: str = "light"
    font_scale: float = 1.3


#: Always in force: Streamlit draws captions at 60% opacity (3.8:1 on the sidebar,
#: 3.9:1 on white); ours are a solid grey that reads at 7:1 or better on both.
BASE_RULES = (
    f"[data-testid='stCaptionContainer'] {{ color: {PALETTES['light'].muted}; opacity: 1; }}",
)
#: Side-by-side charts stack when the main area is narrower than 1,000 px (a 1,024 px window
#: with the sidebar open leaves ~650 px: two charts of ~310 px cut their titles and cram their
#: labels). A container query, so it follows the main area, not the window.
LAYOUT_RULES = (
    "[data-testid='stMainBlockContainer'] { container-type: inline-size; }",
    # Streamlit's wide layout keeps 5rem each side of the page at any width; below 1,280 px
    # (1,024 px with the sidebar open left 593 px for the page, and the Multi-view comparison
    # scrolled sideways) 1.5rem is room enough
    "@media (max-width: 1279.98px) { [data-testid='stMainBlockContainer'] "
    "{ padding-left: 1.5rem; padding-right: 1.5rem; } }",
    # static tables (widgets.static_table): st.table's look, in the page's own colours
    ".cl-table { width: 100%; border-collapse: collapse; font-size: 0.875em; color: inherit; }",
    # a few short columns (a score and its value) read as a pair, not across the page
    ".cl-table.cl-fit { width: auto; min-width: min(100%, 24em); }",
    ".cl-table th { text-align: left; font-weight: 600; padding: 0.45em 0.6em; "
    "border-bottom: 2px solid rgba(128, 128, 128, 0.45); }",
    # Text breaks between words; a word longer than its column only when the column's width is
    # fixed (widths given). A table too wide for the page scrolls in its box instead: squeezed
    # to fit 600 px, the Multi-view table's text columns had shown one syllable per line.
    ".cl-table td { padding: 0.4em 0.6em; vertical-align: top; overflow-wrap: break-word; "
    "border-bottom: 1px solid rgba(128, 128, 128, 0.25); }",
    ".cl-table td:not(.cl-num) { min-width: 6em; }",
    # numbers break at their spaces only, and line up digit under digit
    ".cl-table td.cl-num { overflow-wrap: normal; font-variant-numeric: tabular-nums; }",
    # a table wider than the page (many columns of unbroken numbers) scrolls in its own box; a
    # shade at an edge says more columns are there (overlay scroll bars show only while
    # scrolling): covers that scroll with the table hide each shade once its end is reached
    ".cl-table-box { max-width: 100%; overflow-x: auto; "
    "--cl-cover: #ffffff; --cl-shade: rgba(0, 0, 0, 0.18); background: "
    "linear-gradient(to right, var(--cl-cover) 30%, transparent) left / 3em 100% no-repeat local, "
    "linear-gradient(to left, var(--cl-cover) 30%, transparent) right / 3em 100% no-repeat local, "
    "radial-gradient(farthest-side at 0 50%, var(--cl-shade), transparent) "
    "left / 1em 100% no-repeat scroll, "
    "radial-gradient(farthest-side at 100% 50%, var(--cl-shade), transparent) "
    "right / 1em 100% no-repeat scroll; }",
    # A button's label wraps rather than being cut: Streamlit ends a label too long for its
    # column with "…", and at 1,024 px "Run comparison" read "Run co…" and the Multi-view
    # downloads "Download tab…".
    ".stApp button [data-testid='stMarkdownContainer'] { white-space: normal; overflow: visible; "
    "text-overflow: clip; min-width: 0; }",
    ".stApp button [data-testid='stMarkdownContainer'] p { white-space: normal; }",
    ".stApp [data-testid='stMain'] button { max-width: 100%; }",
    # boxes that open in the browser (widgets.folded): st.expander's look
    ".cl-fold { border: 1px solid rgba(128, 128, 128, 0.3); border-radius: 0.5rem; "
    "margin-bottom: 0.75rem; }",
    ".cl-fold > summary { cursor: pointer; padding: 0.6rem 1rem; font-size: 0.875rem; "
    "line-height: 1.6; }",
    ".cl-fold > summary:hover { color: #ff4b4b; }",
    ".cl-fold > div { padding: 0 1rem 0.75rem; }",
    f".cl-fold-intro {{ font-size: 0.875rem; margin: 0 0 0.75rem; "
    f"color: {PALETTES['light'].muted}; }}",
    # labelled values (widgets.metric_cards): st.metric's look, one element for all
    ".cl-metrics { display: grid; gap: 1rem; margin: 0.25rem 0 0.5rem; }",
    ".cl-bordered .cl-metric { border: 1px solid rgba(128, 128, 128, 0.3); "
    "border-radius: 0.5rem; padding: 0.75rem 1rem; }",
    # a card's help: a "?" mark whose text shows on hover or keyboard focus
    ".cl-help { display: inline-flex; align-items: center; justify-content: center; "
    "width: 1.05em; height: 1.05em; margin-left: 0.4em; border: 1px solid currentColor; "
    "border-radius: 50%; font-size: 0.75em; line-height: 1; color: inherit; cursor: help; "
    "position: relative; vertical-align: 0.1em; }",
    ".cl-help:hover::after, .cl-help:focus::after { content: attr(data-help); position: "
    "absolute; left: 0; top: 1.6em; width: max-content; max-width: 20rem; padding: 0.5rem "
    "0.75rem; border-radius: 0.5rem; background: #262730; color: #fafafa; font-size: 0.8rem; "
    "line-height: 1.45; white-space: normal; text-align: left; z-index: 1000; "
    "box-shadow: 0 2px 8px rgba(0, 0, 0, 0.25); }",
    # the last cards of a grid open their help leftwards (it would leave the window)
    ".cl-metric:nth-last-child(-n+2) .cl-help::after { left: auto; right: 0; }",
    ".cl-metric-label { font-size: 0.875rem; line-height: 1.6; color: inherit; }",
    ".cl-metric-value { font-size: 2.25rem; line-height: 1.2; padding-bottom: 0.25rem; "
    "color: inherit; overflow-wrap: anywhere; }",
    # two cards a row on a narrow page: five in 694 px (1,024 px with the sidebar open) were
    # 120 px each, a long label or value over three lines
    "@container (max-width: 760px) { .cl-metrics { grid-template-columns: repeat(2, 1fr) "
    "!important; } }",
    # preformatted text (widgets.preformatted): st.code's look without its highlighter
    ".cl-pre { font-family: 'Source Code Pro', monospace; font-size: 0.875em; line-height: 1.6; "
    "white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; padding: 1em 1.25em; "
    "border-radius: 0.5rem; background: rgba(128, 128, 128, 0.08); color: inherit; }",
    "@container (max-width: 1000px) { "
    "[data-testid='stHorizontalBlock']:has([data-testid='stPlotlyChart'], .clustlens-chart) "
    "{ flex-wrap: wrap; } "
    "[data-testid='stHorizontalBlock']:has([data-testid='stPlotlyChart'], .clustlens-chart) > "
    "[data-testid='stColumn'] { flex: 1 1 100% !important; min-width: 100% !important; } }",
)


def css(settings: Settings) -> str:
    """The style sheet: the always-on readability rules, and presentation mode when it is on.

    Examples
    --------
    >>> "stSidebar" in css(Settings(on=True)), "stSidebar" in css(Settings(on=False))
    (True, False)
    """
    if not settings.on:
        return "<style>\n" + "\n".join(BASE_RULES + LAYOUT_RULES) + "\n</style>"
    if settings.theme not in PALETTES:
        raise ValueError(f"theme must be one of {THEMES}")
    p = PALETTES[settings.theme]
    scale = min(max(float(settings.font_scale), 1.0), 2.0)
    base = round(16 * scale, 1)
    rules = [
        *(BASE_RULES if settings.theme == "light" else ()),
        *LAYOUT_RULES,
        '[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], '
        '[data-testid="stSidebarNav"], [data-testid="collapsedControl"] { display: none; }',
        '[data-testid="stHeaderActionElements"], [data-testid="stDecoration"] { display: none; }',
        # the page navigation moves to the header's top bar (the sidebar is hidden): keep it
        f'[data-testid="stTopNav"] {{ font-size: {base}px; }}',
        ".block-container, [data-testid='stMainBlockContainer'] { max-width: 100%; "
        "padding-top: 3.5rem; padding-left: 3rem; padding-right: 3rem; }",
        f"html, body, .stApp, .stMarkdown, .stText, [data-testid='stMetricLabel'] "
        f"{{ font-size: {base}px; }}",
        f"[data-testid='stMetricValue'] {{ font-size: {round(2.4 * base)}px; }}",
        f"h1 {{ font-size: {round(2.2 * base)}px !important; }} "
        f"h2 {{ font-size: {round(1.7 * base)}px !important; }} "
        f"h3 {{ font-size: {round(1.35 * base)}px !important; }}",
        f"[data-testid='stDataFrame'], code, pre {{ font-size: {round(0.9 * base)}px; }}",
    ]
    if settings.theme == "dark":
        rules += [
            f".stApp, [data-testid='stHeader'] {{ background: {p.background}; color: {p.text}; }}",
            f".stApp p, .stApp li, .stApp label, .stApp h1, .stApp h2, .stApp h3, .stApp span, "
            f"[data-testid='stMetricValue'], [data-testid='stMetricLabel'] {{ color: {p.text}; }}",
            f"[data-testid='stCaptionContainer'], .stApp small, .stApp p.cl-fold-intro "
            f"{{ color: {p.muted}; opacity: 1; }}",
            f"[data-testid='stExpander'] details, .cl-fold, [data-testid='stMetric'] "
            f"{{ background: {p.surface}; border-color: {p.grid}; }}",
            f".stApp code, .stApp pre {{ background: {p.surface}; color: {p.text}; }}",
            f".cl-table-box {{ --cl-cover: {p.background}; "
            "--cl-shade: rgba(255, 255, 255, 0.22); }",
            # expander headers, the upload drop zone and KaTeX keep light backgrounds and
            # colours of their own otherwise (found by the browser contrast test)
            f"[data-testid='stExpander'] summary, [data-testid='stExpander'] summary:hover, "
            f"[data-testid='stFileUploaderDropzone'] {{ background: {p.surface}; "
            f"color: {p.text}; }}",
            f"[data-testid='stFileUploaderDropzoneInstructions'] span, "
            f"[data-testid='stFileUploaderDropzoneInstructions'] small {{ color: {p.text}; }}",
            f".stApp .katex, .stApp .katex * {{ color: {p.text}; background: transparent; }}",
            # the keyboard user's "Skip to main content" link: browser blue is 1.9:1 here
            f"[data-testid='stSkipToContent'] {{ color: {p.text}; background: {p.surface}; }}",
            f".stApp button {{ background: {p.surface}; color: {p.text}; "
            f"border-color: {p.grid}; }}",
            f".stApp button p, .stApp button span {{ color: {p.text}; }}",
            # the tab strip's tabs are text, not boxes; the open one underlined (its light
            # theme's blue is 3.4:1 on this background)
            f".stApp .cl-tabs button {{ background: transparent; color: {p.muted}; "
            "border-color: transparent; }",
            f".stApp .cl-tabs button[aria-selected='true'] {{ color: {p.text}; "
            f"border-bottom-color: {p.text}; }}",
            # a widget's help "?" is a button too, its icon stroked in the light theme's grey:
            # it stood as a dark square with a 1.04:1 "?" in it (the contrast test's icons);
            # Streamlit's stroke rule outranks one of equal weight here, hence !important
            ".stApp [data-testid='stTooltipIcon'] button "
            "{ background: transparent; border-color: transparent; }",
            f".stApp [data-testid='stTooltipIcon'] svg {{ stroke: {p.muted} !important; }}",
            f"[data-testid='stAlert'] > div {{ background: {p.surface}; color: {p.text}; }}",
            f"[data-testid='stAlert'] p, [data-testid='stAlert'] strong {{ color: {p.text}; }}",
        ]
    return "<style>\n" + "\n".join(rules) + "\n</style>"


def style_figure(fig: go.Figure, settings: Settings) -> go.Figure:
    """A restyled copy of a figure for the presentation theme (the figure itself when off).

    Fonts grow with the font scale; on the dark theme the background, text and grid follow
    the palette and light-ended sequential scales (Blues, ...) become Cividis.
    """
    if not settings.on:
        return fig
    # a copy: built figures are kept and shared by the content of their inputs
    # (dashboard.figures._memo), so restyling one in place would restyle it for everyone
    fig = go.Figure(fig)
    p = PALETTES[settings.theme]
    factor = min(max(settings.font_scale, 1.0), 2.0)
    size = round(14 * factor)
    fig.update_layout(font={"size": size, "color": p.text})
    # Larger text needs larger margins: let tick labels push the plot area, and grow the fixed
    # margins (titles, axis titles on top) with the font.
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    m = fig.layout.margin
    fig.update_layout(
        margin={
            side: round(getattr(m, side) * factor)
            for side in ("l", "r", "t", "b")
            if getattr(m, side) is not None
        }
    )
    if fig.layout.title and fig.layout.title.text:
        # the title's gap to the plot (room for its subtitle, a top axis's labels and title)
        # grows with the font, like the margins above
        pad_b = fig.layout.title.pad.b if fig.layout.title.pad else None
        fig.update_layout(
            title={
                "font": {"size": size + 4, "color": p.text},
                **({"pad": {"b": round(pad_b * factor)}} if pad_b else {}),
            }
        )
    if settings.theme == "dark":
        fig.update_layout(paper_bgcolor=p.background, plot_bgcolor=p.surface)
        fig.update_xaxes(gridcolor=p.grid, zerolinecolor=p.grid, linecolor=p.grid)
        fig.update_yaxes(gridcolor=p.grid, zerolinecolor=p.grid, linecolor=p.grid)
        for tr in fig.data:
            cs = getattr(tr, "colorscale", None)
            if cs is not None and _is_light_scale(tr):
                tr.update(colorscale=p.sequential)
    return fig


def _is_light_scale(trace: go.BaseTraceType) -> bool:
    """Whether a trace uses a named sequential scale whose low end is near white."""
    cs = trace.colorscale
    if cs is None:
        return False
    # plotly expands named scales to (position, colour) pairs; check the low end's lightness
    try:
        low = cs[0][1]
    except (TypeError, IndexError):
        return False
    return _lightness(low) > 0.85


def _lightness(colour: str) -> float:
    c = colour.strip().lower()
    if c.startswith("#") and len(c) == 7:
        r, g, b = (int(c[i : i + 2], 16) for i in (1, 3, 5))
    elif c.startswith("rgb"):
        r, g, b = (float(x) for x in c[c.index("(") + 1 : c.index(")")].split(",")[:3])
    else:
        return 0.0
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


# ------------------------------------------------------------------------- Streamlit glue
def current() -> Settings:
    """The settings of this session (off unless the toggle was switched on)."""
    import streamlit as st

    return Settings(
        on=bool(st.session_state.get(K_ON, False)),
        theme=str(st.session_state.get(K_THEME, "light")),
        font_scale=float(st.session_state.get(K_SCALE, 1.3)),
    )


def controls() -> None:
    """The toggle, theme and font size (call inside ``with st.sidebar:``)."""
    import streamlit as st

    st.toggle(
        "Presentation mode",
        key=K_ON,
        help="Hide the sidebar (the pages move to a bar at the top) and enlarge everything.",
    )
    st.radio("Theme", THEMES, key=K_THEME, horizontal=True)
    st.slider("Font size", 1.0, 2.0, step=0.1, key=K_SCALE)


def _exit() -> None:
    import streamlit as st

    st.session_state[K_ON] = False


def apply() -> Settings:
    """Inject the CSS and, in presentation mode, an "Exit presentation" button at the top.

    The sidebar is hidden in presentation mode, so the way out must be on the page itself.
    """
    import streamlit as st

    for k, v in ((K_ON, False), (K_THEME, "light"), (K_SCALE, 1.3)):
        st.session_state.setdefault(k, v)
    s = current()
    st.markdown(css(s), unsafe_allow_html=True)
    if s.on:
        st.button(
            "Exit presentation",
            icon=":material/close_fullscreen:",
            on_click=_exit,
            key="presentation_exit",
        )
    return s
