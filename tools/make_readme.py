"""Render README.md from nbs/index.ipynb without Quarto: drop `#| hide` cells and directive lines, then nbconvert to Markdown.

Usage: python tools/make_readme.py  (or `make readme`)."""
import re, sys
from pathlib import Path
import nbformat
from nbconvert import MarkdownExporter

ROOT = Path(__file__).parent.parent
_directive = re.compile(r'^#\|\s*([\w-]+)(?::\s*(.*))?$')

def render(path: Path) -> str:
    "The README text for the index notebook at `path`."
    nb = nbformat.read(path, as_version=4)
    cells = []
    for c in nb.cells:
        lines = c.source.splitlines()
        opts = [m.group(1) for l in lines if (m := _directive.match(l.strip()))] if c.cell_type == 'code' else []
        if 'hide' in opts or 'exporti' in opts: continue
        if c.cell_type == 'code': c.source = '\n'.join(l for l in lines if not _directive.match(l.strip()))
        c.metadata = {}
        cells.append(c)
    nb.cells = cells
    nb.metadata['language_info'] = {'name': 'python'}  # fenced code blocks get a language
    body, _ = MarkdownExporter(exclude_raw=True).from_notebook_node(nb)
    body = re.sub(r'\n{3,}', '\n\n', body).strip() + '\n'
    return '<!-- generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file -->\n\n' + body

if __name__ == '__main__':
    (ROOT/'README.md').write_text(render(ROOT/'nbs'/'index.ipynb'))
    print('README.md written', file=sys.stderr)
