"""Prints PostgreSQL's own token boundaries and statement splits (libpg_query, through
pglast) for a JSON list of SQL texts read from stdin. Offsets count characters, end
exclusive; null where PostgreSQL's lexer or parser rejects the text."""
import json
import sys

from pglast import parser


def tokens(sql):
    try:
        return [[t.start, t.end + 1] for t in parser.scan(sql)]
    except Exception:
        return None


def statements(sql):
    # From the raw parse tree: a statement runs from its first token to its ';' (the last
    # one to the end), less trailing spaces as PostgreSQL's lexer defines them.
    try:
        raw = parser.parse_sql(sql)
    except Exception:
        return None
    out = []
    for r in raw:
        start = r.stmt_location
        end = start + r.stmt_len if r.stmt_len else len(sql)
        while end > start and sql[end - 1] in " \t\n\r\f\v":
            end -= 1
        out.append([start, end])
    return out


texts = json.load(sys.stdin)
json.dump([{"t": tokens(s), "p": statements(s)} for s in texts], sys.stdout)
