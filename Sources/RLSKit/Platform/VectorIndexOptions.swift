import Foundation
import Postgres

/// The vector stand-in's hnsw and ivfflat are core's hash method under another name, and core
/// methods refuse pgvector's index options (`with (lists = 100)`, `with (m = 16,
/// ef_construction = 64)`). On a server whose `vector` is the stand-in, the migrator blanks
/// that clause out (spaces, so error positions stay right): the options only tune a real
/// index's speed and recall, which the stand-in has not got anyway. `db dump` quotes all of it:
/// `USING "ivfflat" ("embedding" "extensions"."vector_cosine_ops") WITH ("lists"='100')`.
enum VectorIndexOptions {
    /// Scalar ranges, relative to the statement's start, of `with (…)` clauses to blank.
    static func ranges(in text: String) -> [Range<Int>] {
        guard SQLScanner.keywords(text, count: 1).first == "create" else { return [] }
        // ASCII-only lowering keeps every scalar where it was.
        let ls = text.unicodeScalars.map { c -> Unicode.Scalar in
            ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c
        }
        let lower = String(String.UnicodeScalarView(ls))
        guard let m = lower.range(of: #"\busing\s+"?(hnsw|ivfflat)"?\s*\("#, options: .regularExpression) else {
            return []
        }
        var i = lower.unicodeScalars.distance(from: lower.startIndex, to: m.upperBound) - 1
        guard let close = matching(ls, from: i) else { return [] }
        i = close + 1
        while i < ls.count, ls[i].properties.isWhitespace { i += 1 }
        guard i + 4 <= ls.count, String(String.UnicodeScalarView(ls[i..<i + 4])) == "with" else { return [] }
        var j = i + 4
        while j < ls.count, ls[j].properties.isWhitespace { j += 1 }
        guard j < ls.count, ls[j] == "(", let end = matching(ls, from: j) else { return [] }
        return [i..<(end + 1)]
    }

    /// The index of the parenthesis closing the one at `open`.
    static func matching(_ s: [Unicode.Scalar], from open: Int) -> Int? {
        var depth = 0
        for k in open..<s.count {
            if s[k] == "(" {
                depth += 1
            } else if s[k] == ")" {
                depth -= 1
                if depth == 0 { return k }
            }
        }
        return nil
    }
}

extension VectorIndexOptions {
    /// Blanks the clauses in `statements` and in the file's scalars they point into.
    static func blank(_ statements: [SQLStatement], in scalars: inout [Unicode.Scalar]) -> [SQLStatement] {
        statements.map { st in
            let found = ranges(in: st.text)
            guard !found.isEmpty else { return st }
            var own = Array(st.text.unicodeScalars)
            for r in found {
                for k in r where own[k] != "\n" {
                    own[k] = " "
                    scalars[st.offset + k] = " "
                }
            }
            var copy = st
            copy.text = String(String.UnicodeScalarView(own))
            return copy
        }
    }

    /// True when a migration mentions hnsw or ivfflat and the server's `vector` is the stand-in.
    static func serverHasStandIn(_ conn: PostgresConnection, files: [SQLFile]) throws -> Bool {
        guard
            files.contains(where: {
                $0.contents.range(of: "hnsw", options: .caseInsensitive) != nil
                    || $0.contents.range(of: "ivfflat", options: .caseInsensitive) != nil
            })
        else { return false }
        return try conn.query(
            """
            select exists (select 1 from pg_catalog.pg_available_extensions
                            where name = 'vector' and comment like 'rlskit stand-in:%') as v
            """
        ).rows[0].decode("v")
    }
}
