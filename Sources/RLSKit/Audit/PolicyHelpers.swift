import Postgres

/// A function of the project that a policy calls, kept when its body is one pure expression: a
/// `language sql` SELECT, or PL/pgSQL `begin return …; end` / `return query select …`. The
/// policy lints read a policy with such calls replaced by the body (the holes live there).
struct PolicyHelper: Sendable {
    var schema: String
    /// Lower-cased.
    var name: String
    var language: String
    var argumentNames: [String]
    var argumentCount: Int
    /// The expression's words, parameters still as written.
    var words: [FunctionBody.Word]

    init?(schema: String, name: String, language: String, body: String, argumentNames: [String], argumentCount: Int) {
        guard let w = Self.expression(body, language: language) else { return nil }
        self.schema = schema
        self.name = name.lowercased()
        self.language = language
        self.argumentNames = argumentNames.map { $0.lowercased() }
        self.argumentCount = argumentCount
        words = w
    }

    /// The body as one expression, nil when it is anything else (declarations, several statements).
    static func expression(_ body: String, language: String) -> [FunctionBody.Word]? {
        var w = FunctionBody(body).words
        if w.contains(where: { $0.kind == .dollarString }) { return nil }
        func trimSemicolons() { while w.last?.key == ";" { w.removeLast() } }
        trimSemicolons()
        var wrap = false
        switch language {
        case "plpgsql":
            guard w.first?.key == "begin", w.last?.key == "end" else { return nil }
            w = Array(w.dropFirst().dropLast())
            trimSemicolons()
            guard w.first?.key == "return" else { return nil }
            w.removeFirst()
            if w.first?.key == "query" {
                w.removeFirst()
                guard w.first?.key == "select" else { return nil }
                wrap = true
            }
        case "sql":
            guard w.first?.key == "select" else { return nil }
        default: return nil
        }
        guard !w.isEmpty, !w.contains(where: { $0.key == ";" }) else { return nil }
        if w.first?.key == "select" {
            // `select exists (…)` is its expression; `select 1 from …` a scalar subquery.
            if !wrap, !hasTopLevel("from", w) { return Array(w.dropFirst()) }
            wrap = true
        }
        let open = FunctionBody.Word(kind: .punctuation, text: "(", key: "(")
        let close = FunctionBody.Word(kind: .punctuation, text: ")", key: ")")
        return wrap ? [open] + w + [close] : w
    }

    static func hasTopLevel(_ key: String, _ w: [FunctionBody.Word]) -> Bool {
        var depth = 0
        for x in w {
            if x.key == "(" || x.key == "[" { depth += 1 }
            if x.key == ")" || x.key == "]" { depth -= 1 }
            if depth == 0, x.key == key { return true }
        }
        return false
    }

    /// The body with `args` (SQL text) in place of its parameters, in parentheses. In a SQL
    /// function a column of the body's tables wins over a parameter of the same name (what
    /// `where organization_id = organization_id` gets wrong), so such a name stays a column.
    /// In PL/pgSQL such a name is ambiguous and the call raises (the policy fails closed): nil.
    func inlined(_ args: [String], columns: PolicyExpression.Scan.Columns) -> String? {
        func key(_ i: Int) -> String { i >= 0 && i < words.count ? words[i].key : "" }
        var shadowing = Set<String>()
        let body = PolicyExpression(words.map(\.text).joined(separator: " "))
        for t in body.fromTables { shadowing.formUnion(columns(t) ?? []) }
        if language == "plpgsql" {
            let used = Set(words.filter { $0.kind == .word }.map(\.key))
            if argumentNames.contains(where: { !$0.isEmpty && shadowing.contains($0) && used.contains($0) }) {
                return nil
            }
        }
        var out: [String] = []
        for (i, w) in words.enumerated() {
            if w.kind == .parameter, let n = Int(w.text.dropFirst()), n >= 1, n <= args.count {
                out.append("(" + args[n - 1] + ")")
            } else if w.kind == .word, let k = argumentNames.firstIndex(of: w.key), k < args.count, !w.key.isEmpty,
                key(i - 1) != ".", key(i + 1) != ".", key(i + 1) != "(", !shadowing.contains(w.key)
            {
                out.append("(" + args[k] + ")")
            } else {
                out.append(w.text)
            }
        }
        return "(" + out.joined(separator: " ") + ")"
    }
}

/// A policy expression with the pure helpers it calls replaced by their bodies.
struct InlinedExpression: Sendable {
    /// The helpers replaced, `schema.name`.
    var helpers: [String]
    var expression: PolicyExpression
}

extension CatalogDataset {
    static let policyHelpersSQL = """
        select n.nspname as schema, p.proname as name, l.lanname as language, p.prosrc as body,
               coalesce(p.proargnames, '{}')::text[] as argnames, p.pronargs::text as nargs
        from pg_catalog.pg_proc p
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        join pg_catalog.pg_language l on l.oid = p.prolang
        where p.prokind = 'f' and l.lanname in ('sql', 'plpgsql') and p.proname = any($1::text[])
          and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
          and \(SchemaLists.userSchema("n")) and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
        """
}

extension AuditCatalog {
    /// The columns of a table as a policy or a body names it: `schema.table`, or a bare name
    /// looked up in `schema` first, then public, then any schema.
    func columnNames(_ written: String, schema: String) -> Set<String>? {
        if written.contains(".") { return columns[written].map { Set($0.map(\.name)) } }
        for s in [schema, "public"] { if let c = columns["\(s).\(written)"] { return Set(c.map(\.name)) } }
        return columns.first { $0.key.hasSuffix("." + written) }.map { Set($0.value.map(\.name)) }
    }

    /// Reads the pure helpers the policies call and the columns of the tables their subqueries
    /// and those helpers read, then inlines the helpers into the policies.
    mutating func loadPolicyHelpers(_ conn: PostgresConnection) throws {
        var names = Set<String>()
        for p in policies { for e in p.expressions { PolicyExpression.Scan.calledFunctions(e.nodes, into: &names) } }
        if !names.isEmpty {
            let rows = try conn.query(CatalogDataset.policyHelpersSQL, [Auditor.postgresArray(names.sorted())]).rows
            for r in rows {
                guard
                    let h = PolicyHelper(
                        schema: try r.decode("schema"), name: try r.decode("name"), language: try r.decode("language"),
                        body: try r.decode("body"), argumentNames: try r.decode("argnames"),
                        argumentCount: Int(try r.decode("nargs") as String) ?? 0)
                else { continue }
                helpers[h.name, default: []].append(h)
            }
        }
        // Columns of the policies' tables and of every table their subqueries or helpers read.
        var qualified = Set<String>()
        var bare = Set<String>()
        func add(_ t: String) {
            if t.contains(".") { qualified.insert(t) } else { bare.insert(t) }
        }
        for p in policies where p.expressions.contains(where: { !$0.fromTables.isEmpty || calls(helpersOf: $0) }) {
            add(p.tableName)
            for e in p.expressions { e.fromTables.forEach(add) }
        }
        for h in helpers.values.joined() {
            PolicyExpression(h.words.map(\.text).joined(separator: " ")).fromTables.forEach(add)
        }
        qualified = qualified.filter { columns[$0] == nil }
        if !qualified.isEmpty || !bare.isEmpty {
            let rows = try conn.query(
                Catalog.namedTableColumnsSQL,
                [Auditor.postgresArray(qualified.sorted()), Auditor.postgresArray(bare.sorted())]
            ).rows
            let known = Set(columns.keys)
            for r in rows {
                let key: String = try r.decode("schema") + "." + (try r.decode("table_name") as String)
                if known.contains(key) { continue }
                columns[key, default: []].append((try r.decode("column_name"), try r.decode("refs")))
            }
        }
        guard !helpers.isEmpty else { return }
        for p in policies {
            let found = p.expressions.compactMap { inline($0, policy: p) }
            if !found.isEmpty { inlined[ObjectIdentifier(p)] = found }
        }
    }

    func calls(helpersOf e: PolicyExpression) -> Bool {
        var names = Set<String>()
        PolicyExpression.Scan.calledFunctions(e.nodes, into: &names)
        return names.contains { helpers[$0] != nil }
    }

    /// The policy's expressions with helper calls inlined (only those that call one).
    func inlinedExpressions(_ p: PolicyRow) -> [InlinedExpression] { inlined[ObjectIdentifier(p)] ?? [] }

    /// `e` with its helper calls replaced by their bodies, up to three calls deep; nil when it calls none.
    func inline(_ e: PolicyExpression, policy p: PolicyRow) -> InlinedExpression? {
        var used: [String] = []
        var nodes = e.nodes
        for _ in 0..<3 {
            let before = used.count
            nodes = replaceCalls(nodes, policy: p, used: &used)
            if used.count == before { break }
        }
        guard !used.isEmpty else { return nil }
        return InlinedExpression(
            helpers: used, expression: PolicyExpression(PolicyExpression.Render.nodes(nodes)))
    }

    func replaceCalls(
        _ nodes: [PolicyExpression.Node], policy p: PolicyRow, used: inout [String]
    ) -> [PolicyExpression.Node] {
        typealias Node = PolicyExpression.Node
        var out: [Node] = []
        var i = 0
        while i < nodes.count {
            if case .token(.ident(let f, false)) = nodes[i], i + 1 < nodes.count,
                case .group(false, let args) = nodes[i + 1]
            {
                var schema: String?
                if out.count >= 2, out[out.count - 1].token == .dot, case .token(.ident(let s, _)) = out[out.count - 2]
                {
                    schema = s
                }
                let parts = PolicyExpression.Scan.arguments(args)
                if let h = helper(f.lowercased(), schema: schema, arguments: parts.count, near: p.schema) {
                    let texts = parts.map { PolicyExpression.Scan.qualified($0, table: p.table) }
                    if let body = h.inlined(texts, columns: { self.columnNames($0, schema: h.schema) }) {
                        if schema != nil { out.removeLast(2) }
                        out.append(.group(bracket: false, PolicyExpression.Parser.parse(body)))
                        used.append(h.schema + "." + h.name)
                        i += 2
                        continue
                    }
                }
            }
            if case .group(let b, let inner) = nodes[i] {
                out.append(.group(bracket: b, replaceCalls(inner, policy: p, used: &used)))
            } else {
                out.append(nodes[i])
            }
            i += 1
        }
        return out
    }

    func helper(_ name: String, schema: String?, arguments: Int, near policySchema: String) -> PolicyHelper? {
        guard let all = helpers[name] else { return nil }
        let fit = all.filter { $0.argumentCount == arguments && (schema == nil || $0.schema == schema) }
        return fit.first { $0.schema == "public" } ?? fit.first { $0.schema == policySchema } ?? fit.first
    }
}

extension PolicyExpression.Scan {
    /// Lower-cased names of the functions `nodes` call (auth's and the built-ins' left out).
    static func calledFunctions(_ nodes: [Node], into names: inout Set<String>) {
        for (i, n) in nodes.enumerated() {
            if case .group(_, let inner) = n {
                calledFunctions(inner, into: &names)
                continue
            }
            guard case .token(.ident(let s, false)) = n, i + 1 < nodes.count, case .group(false, _) = nodes[i + 1],
                !expressionKeywords.contains(s.uppercased())
            else { continue }
            if i > 1, nodes[i - 1].token == .dot, nodes[i - 2].token == .ident("auth", quoted: false) { continue }
            names.insert(s.lowercased())
        }
    }

    /// A call's arguments, split at top-level commas.
    static func arguments(_ args: [Node]) -> [[Node]] {
        guard !args.isEmpty else { return [] }
        var parts: [[Node]] = [[]]
        for n in args {
            if n.token == .comma { parts.append([]) } else { parts[parts.count - 1].append(n) }
        }
        return parts
    }

    /// An argument of a policy's call as SQL text, its bare columns qualified with the policy's
    /// table: inside the helper's subquery `team_id` would name the subquery table's column.
    static func qualified(_ arg: [Node], table: String) -> String {
        if tokens(arg).contains(where: { $0.isKeyword("SELECT") }) { return PolicyExpression.Render.nodes(arg) }
        func walk(_ nodes: [Node]) -> [Node] {
            var out: [Node] = []
            for i in nodes.indices {
                let next = i + 1 < nodes.count ? nodes[i + 1] : nil
                let previous = i > 0 ? nodes[i - 1] : nil
                switch nodes[i] {
                case .group(let b, let inner): out.append(.group(bracket: b, walk(inner)))
                case .token(.ident(let s, let quoted))
                where next?.token != .dot && previous?.token != .dot && previous?.token != .cast
                    && !{ if case .group(false, _)? = next { true } else { false } }()
                    && (quoted || !expressionKeywords.contains(s.uppercased())):
                    let plain = table.allSatisfy { $0 == "_" || $0.isLowercase || $0.isNumber }
                    out += [.token(.ident(table, quoted: !plain)), .token(.dot), nodes[i]]
                default: out.append(nodes[i])
                }
            }
            return out
        }
        return PolicyExpression.Render.nodes(walk(arg))
    }
}
