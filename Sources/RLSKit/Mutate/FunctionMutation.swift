import Postgres

/// SECURITY DEFINER functions the API may call, and the mutant that removes a caller check
/// from one: a top-level `IF <condition on auth.uid()/jwt/role> THEN … RAISE … END IF;`.
struct DefinerFunction: Sendable, Equatable {
    var schema: String
    var name: String
    /// `pg_get_function_identity_arguments`.
    var arguments: String
    var source: String
    /// `pg_get_functiondef`: the CREATE OR REPLACE statement the undo runs.
    var definition: String

    var display: String { SQL.display(schema) + "." + SQL.display(name) + "(\(arguments))" }

    static let sql = """
        select n.nspname as schema, p.proname as name, pg_catalog.pg_get_function_identity_arguments(p.oid) as args,
               p.prosrc as source, pg_catalog.pg_get_functiondef(p.oid) as definition
        from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        join pg_catalog.pg_language l on l.oid = p.prolang
        where p.prosecdef and l.lanname = 'plpgsql' and p.prokind = 'f' and n.nspname = any($1::text[])
          and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
        order by 1, 2, 3
        """

    static func read(_ conn: PostgresConnection, exposed: [String]) throws -> [DefinerFunction] {
        try conn.query(sql, [Auditor.postgresArray(exposed)]).rows.map { r in
            DefinerFunction(
                schema: try r.decode("schema"), name: try r.decode("name"), arguments: try r.decode("args"),
                source: try r.decode("source"), definition: try r.decode("definition"))
        }
    }

    /// The body without its first caller check, and that check's text; nil when it has none.
    func withoutCallerCheck() -> (source: String, check: String)? {
        let s = Array(source.unicodeScalars)
        let tokens = SQLLexer.tokens(s).filter { !$0.isTrivia }
        func text(_ t: SQLToken) -> String { String(String.UnicodeScalarView(s[t.start..<t.end])) }
        func word(_ i: Int) -> String {
            i >= 0 && i < tokens.count && tokens[i].kind == .word ? text(tokens[i]).lowercased() : ""
        }
        var i = 0
        while i < tokens.count {
            defer { i += 1 }
            guard word(i) == "if", word(i - 1) != "end",
                let then = (i..<tokens.count).first(where: { word($0) == "then" })
            else { continue }
            let condition = (i + 1..<then)
            let checksCaller = condition.contains { j in
                word(j) == "auth" && text(tokens[min(j + 1, tokens.count - 1)]) == "."
                    && ["uid", "jwt", "role"].contains(word(j + 2))
            }
            guard checksCaller else { continue }
            // The matching END IF; with no ELSE or ELSIF of its own, and a RAISE inside.
            var depth = 0
            var raises = false
            var end: Int?
            var j = then + 1
            while j < tokens.count {
                let w = word(j)
                if w == "if", word(j - 1) != "end" { depth += 1 }
                if w == "end", word(j + 1) == "if" {
                    if depth == 0 {
                        end = j + 1
                        break
                    }
                    depth -= 1
                    j += 1
                } else if depth == 0, w == "else" || w == "elsif" || w == "elseif" {
                    break
                }
                if w == "raise" { raises = true }
                j += 1
            }
            guard let end, raises else { continue }
            var last = end
            if last + 1 < tokens.count, text(tokens[last + 1]) == ";" { last += 1 }
            let range = tokens[i].start..<tokens[last].end
            var out = s
            out.replaceSubrange(range, with: "null;".unicodeScalars)
            let condText = String(String.UnicodeScalarView(s[tokens[i].start..<tokens[then].end]))
            return (
                String(String.UnicodeScalarView(out)),
                condText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            )
        }
        return nil
    }

    /// The definition with `body` in place of the current one.
    func definition(withBody body: String) -> String? {
        guard let r = definition.range(of: source) else { return nil }
        return definition.replacingCharacters(in: r, with: body)
    }
}

extension MutantGenerator {
    static func functionMutants(_ functions: [DefinerFunction]) -> [Mutant] {
        functions.compactMap { f in
            guard let cut = f.withoutCallerCheck(), let mutated = f.definition(withBody: cut.source) else { return nil }
            return Mutant(
                kind: "drop-caller-check", table: f.display, policy: nil,
                mutation: "caller check removed: \(cut.check) … end if",
                apply: [mutated], undo: [f.definition], hint: KillHint(effect: .function(f), ownerColumn: nil))
        }
    }
}
