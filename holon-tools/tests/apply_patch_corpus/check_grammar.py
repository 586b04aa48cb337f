"""Feeds the ApplyPatch corpus to the freeform grammar with the `lark` parser.

Every file under valid/ must parse and every file under invalid/ must not: the same
corpus the Rust parser is tested against, so grammar and parser accept the same
patches. Usage: python check_grammar.py (needs `pip install lark`).
"""

import pathlib
import sys

import lark

HERE = pathlib.Path(__file__).resolve().parent
GRAMMAR = HERE.parent.parent.parent / "holon-patch" / "src" / "apply_patch.lark"


def main() -> int:
    parser = lark.Lark(GRAMMAR.read_text(), start="start", parser="earley")
    passed = failed = 0
    for expected, folder in ((True, "valid"), (False, "invalid")):
        for path in sorted((HERE / folder).glob("*.patch")):
            text = path.read_bytes().decode("utf-8")
            try:
                parser.parse(text)
                accepted = True
            except lark.exceptions.LarkError:
                accepted = False
            if accepted == expected:
                passed += 1
            else:
                failed += 1
                verdict = "accepted" if accepted else "rejected"
                print(f"FAIL {folder}/{path.name}: the grammar {verdict} it", file=sys.stderr)
    print(f"apply_patch grammar: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
