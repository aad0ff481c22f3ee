"""Render README.md from nbs/index.ipynb without Quarto: drop `#| hide` cells and directive lines, then nbconvert to Markdown.

Usage: python tools/make_readme.py  (or `make readme`)."""
import re, sys
from pathlib import Path
import nbformat
from nbconvert import MarkdownExporter
from nbconvert.preprocessors import TagRemovePreprocessor

ROOT = Path(__file__).parent.parent
_directive = re.compile(r'^#\|\s*([\w-]+)(?::\s*(.*))?$')

def render(path: Path) -> str:
    "The README text for the index notebook at `path`."
    nb = nbformat.read(path, as_version=4)
    cells = []
    for c in nb.cells:
        lines = c.source.splitlines()
        opts = {m.group(1): (m.group(2) or '').strip() for l in lines if (m := _directive.match(l.strip()))} if c.cell_type == 'code' else {}
        if 'hide' in opts or 'exporti' in opts: continue
        if c.cell_type == 'code': c.source = '\n'.join(l for l in lines if not _directive.match(l.strip()))
        c.metadata = {'tags': ['remove_input']} if opts.get('echo') == 'false' else {}
        for o in c.get('outputs', []):  # a README shows plain text: drop HTML renderings (DataFrames) that have one
            if 'text/html' in o.get('data', {}) and 'text/plain' in o['data']: del o['data']['text/html']
        cells.append(c)
    nb.cells = cells
    nb.metadata['language_info'] = {'name': 'python'}  # fenced code blocks get a language
    exporter = MarkdownExporter(exclude_raw=True)
    exporter.register_preprocessor(TagRemovePreprocessor(remove_input_tags=('remove_input',)), enabled=True)
    body, _ = exporter.from_notebook_node(nb)
    body = re.sub(r'\n{3,}', '\n\n', body).strip() + '\n'
    return '<!-- generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file -->\n\n' + body

if __name__ == '__main__':
    (ROOT/'README.md').write_text(render(ROOT/'nbs'/'index.ipynb'))
    print('README.md written', file=sys.stderr)
