"""The site's one stylesheet: no web font, no image, nothing fetched. Colours meet WCAG AA
contrast (4.5:1 or more) on their backgrounds; a status is always words too, never colour
alone. (A module, not a .css file: the package ships Python modules whatever its data rules.)"""

from __future__ import annotations

CSS = """\
:root { color-scheme: light; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1b1f24; background: #ffffff; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.75rem; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid #d0d7de; }
a { color: #0a51b8; }
a:focus-visible { outline: 3px solid #0a51b8; outline-offset: 2px; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { text-align: left; vertical-align: top; padding: 0.35rem 0.6rem;
         border-bottom: 1px solid #d0d7de; }
thead th { background: #f3f5f7; }
tbody th { font-weight: 600; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
.empty { color: #4a5561; }
.error { color: #a1151d; font-weight: 600; }
.badge { display: inline-block; padding: 0 0.45rem; border-radius: 0.6rem; border: 1px solid;
         font-size: 0.85rem; font-weight: 600; white-space: nowrap; }
.badge.ok { color: #11602b; background: #e8f6ec; }
.badge.info { color: #0a4aa8; background: #eaf1fd; }
.badge.warn { color: #7a4700; background: #fff4d6; }
.badge.bad { color: #a1151d; background: #fdecec; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #ffffff; padding: 0.25rem 0.5rem; }
"""
