#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rst-check.py FILE...: parse reStructuredText with docutils and fail on
any warning, as "make htmldocs" would show it.  Sphinx's own roles and
directives (:doc:, :ref:, :c:func:, .. kernel-doc::, ...) are not
docutils': they are registered as plain text here, so that what remains
is the document's own markup."""
import sys

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles


def plain_role(name, rawtext, text, lineno, inliner, options=None,
               content=None):
    return [nodes.literal(rawtext, text)], []


for r in ("doc", "ref", "c:func", "c:type", "c:macro", "c:data",
          "manpage", "file", "kbd"):
    roles.register_local_role(r, plain_role)


class Ignored(Directive):
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None

    def run(self):
        return []


Ignored.option_spec = {}
for d in ("kernel-doc", "toctree", "c:function", "c:macro", "c:type",
          "c:struct", "only"):
    directives.register_directive(d, Ignored)

rc = 0
for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    try:
        publish_doctree(text, source_path=path, settings_overrides={
            "halt_level": 2, "report_level": 2, "warning_stream": sys.stderr})
        print(f"ok   {path}")
    except Exception as e:  # docutils raises SystemMessage at halt_level
        print(f"FAIL {path}: {e}")
        rc = 1
sys.exit(rc)
