/// Where the migrations create what a mutant changes: the last `create policy <name> on
/// <table>` (a later migration may drop and create it again), else the table's `create table`.
struct MutantSource {
    struct Key: Hashable {
        var words: [String]
    }
    private var places: [Key: SourceLocation] = [:]

    init(_ files: [SQLFile]) {
        for f in files {
            for s in SQLScanner.statements(in: f.contents) where s.kind == .sql {
                let w = Self.words(s.text, count: 7)
                guard w.count >= 4, w[0] == "create" else { continue }
                let at = SourceLocation(file: f.path, line: s.line)
                if w[1] == "policy", w.count >= 5, w[3] == "on" {
                    // `on public.t` or `on t`: the scanner drops the dot.
                    places[Key(words: ["policy", w[2], w[4], w.count > 5 ? w[5] : ""])] = at
                    places[Key(words: ["policy", w[2], "", w[4]])] = at
                } else if w[1] == "function" || w.starts(with: ["create", "or", "replace", "function"]) {
                    let rest = Array(w.dropFirst(w[1] == "function" ? 2 : 4))
                    guard !rest.isEmpty else { continue }
                    places[Key(words: ["function"] + rest.prefix(2))] = at
                    places[Key(words: ["function", "", rest[0]])] = at
                } else if w[1] == "table" {
                    var rest = Array(w.dropFirst(2))
                    if rest.starts(with: ["if", "not", "exists"]) { rest.removeFirst(3) }
                    guard !rest.isEmpty else { continue }
                    places[Key(words: ["table"] + rest.prefix(2))] = at
                    places[Key(words: ["table", "", rest[0]])] = at
                }
            }
        }
    }

    /// The first words and names of a statement as the catalog has them: a quoted name as
    /// written inside its quotes, an unquoted word folded as the server folds it.
    static func words(_ text: String, count: Int) -> [String] {
        let s = Array(text.unicodeScalars)
        var out: [String] = []
        SQLLexer.scan(s) { tok in
            let w = String(String.UnicodeScalarView(s[tok.start..<tok.end]))
            if tok.kind == .word { out.append(w.lowercased()) }
            if tok.kind == .quotedName, w.count >= 2 {
                out.append(String(w.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\""))
            }
            return out.count < count
        }
        return out
    }

    func policy(_ name: String, schema: String, table: String) -> SourceLocation? {
        places[Key(words: ["policy", name, schema, table])]
            ?? (schema == "public" ? places[Key(words: ["policy", name, "", table])] : nil)
    }

    func function(schema: String, name: String) -> SourceLocation? {
        places[Key(words: ["function", schema, name])]
            ?? (schema == "public" ? places[Key(words: ["function", "", name])] : nil)
    }

    func table(schema: String, name: String) -> SourceLocation? {
        places[Key(words: ["table", schema, name])]
            ?? (schema == "public" ? places[Key(words: ["table", "", name])] : nil)
    }
}
