import Foundation

/// Hand-written scenarios: steps as named actors, each with expectations.
///
///     scenario a user edits their own profile but not another's
///       user alice {"full_name": "Alice"}
///       user bob
///       as alice: update public.profiles set full_name = 'Al' where id = '{alice}'
///         expect 1 row affected
///       as alice: update public.profiles set full_name = 'Al' where id = '{bob}'
///         expect 0 rows affected
///       as alice: upload avatars {alice}/a.png
///         expect ok
///
/// Actors: declared users, anon, service_role, admin (the connecting role, not impersonated)
/// and auth_admin (supabase_auth_admin, as GoTrue). `{name}` is a user's id, `{name.email}` their email.
struct Scenario: Sendable {
    struct Step: Sendable {
        var actor: String
        /// SQL, or a Storage API call: "upload BUCKET NAME" / "remove BUCKET NAME".
        var text: String
        var expectations: [Expectation]
        var location: SourceLocation
        /// The file line of each line of `text` (comment lines between them are skipped).
        var lines: [Int] = []
    }
    var title: String
    var users: [HarnessActor]
    var steps: [Step]
    var location: SourceLocation
}

enum ScenarioFile {
    static let builtInActors = ["anon", "service_role", "admin", "auth_admin"]

    /// Parses a whole file or throws its first mistake; nothing runs from a malformed file.
    static func parse(_ text: String, path: String) throws(InputError) -> [Scenario] {
        var scenarios: [Scenario] = []
        var stepOpen = false  // an `as` line seen, its SQL may continue until the first `expect`
        var titles: [String: SourceLocation] = [:]
        let lines = TextFile.lines(text)
        for (i, raw) in lines.enumerated() {
            let at = SourceLocation(file: path, line: i + 1)
            if let problem = TextFile.nulProblem(raw) { throw InputError(at, problem) }
            let line = raw.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\r"])
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("--") { continue }
            let (word, rest) = split(line)
            if word == "scenario" {
                guard !rest.isEmpty else {
                    throw InputError(at, "'scenario' needs a title, e.g. 'scenario users edit only their own profile'")
                }
                try finish(scenarios.last)
                if let dup = titles[rest] {
                    throw InputError(at, "scenario '\(rest)' already exists at line \(dup.line): give it another title")
                }
                titles[rest] = at
                scenarios.append(Scenario(title: rest, users: [], steps: [], location: at))
                stepOpen = false
                continue
            }
            guard !scenarios.isEmpty else {
                throw InputError(at, "'\(word)' before any 'scenario' line: start the file with 'scenario <title>'")
            }
            let s = scenarios.count - 1
            if word == "user" {
                guard scenarios[s].steps.isEmpty else { throw InputError(at, "declare users before the first step") }
                scenarios[s].users.append(try user(rest, at: at, existing: scenarios[s].users))
                continue
            }
            if word == "expect" {
                guard let st = scenarios[s].steps.indices.last else {
                    throw InputError(at, "'expect' without a step: write 'as <actor>: <sql>' first")
                }
                try placeholders(in: rest, users: scenarios[s].users, at: at)
                scenarios[s].steps[st].expectations.append(try expectation(rest, at: at))
                stepOpen = false
                continue
            }
            if let (actor, body) = asLine(line) {
                if let last = scenarios[s].steps.last, last.expectations.isEmpty {
                    throw InputError(
                        last.location, "step has no 'expect' line: add one, e.g. 'expect ok' or 'expect denied by rls'")
                }
                guard builtInActors.contains(actor) || scenarios[s].users.contains(where: { $0.name == actor }) else {
                    throw InputError(
                        at,
                        "unknown actor '\(actor)': declare it with 'user \(actor)' or use anon, service_role, admin, auth_admin"
                    )
                }
                try placeholders(in: body, users: scenarios[s].users, at: at)
                scenarios[s].steps.append(
                    Scenario.Step(
                        actor: actor, text: body, expectations: [], location: at, lines: body.isEmpty ? [] : [at.line]))
                stepOpen = true
                continue
            }
            guard stepOpen, let st = scenarios[s].steps.indices.last else {
                throw InputError(
                    at,
                    "unexpected '\(word)': lines are 'scenario', 'user', 'as <actor>: <sql>', SQL continuing a step, or 'expect'"
                )
            }
            try placeholders(in: line, users: scenarios[s].users, at: at)
            scenarios[s].steps[st].text += (scenarios[s].steps[st].text.isEmpty ? "" : "\n") + line
            scenarios[s].steps[st].lines.append(at.line)
        }
        try finish(scenarios.last)
        for sc in scenarios {
            for st in sc.steps {
                if st.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    throw InputError(st.location, "step has no SQL after 'as \(st.actor):'")
                }
                try storageCall(st, users: sc.users)
                try oneStatement(st)
            }
        }
        return scenarios
    }

    static func finish(_ s: Scenario?) throws(InputError) {
        guard let s else { return }
        if s.steps.isEmpty {
            throw InputError(s.location, "scenario '\(s.title)' has no steps: add 'as <actor>: <sql>' lines")
        }
        if let last = s.steps.last, last.expectations.isEmpty {
            throw InputError(
                last.location, "step has no 'expect' line: add one, e.g. 'expect ok' or 'expect denied by rls'")
        }
    }

    static func split(_ line: String) -> (String, String) {
        guard let sp = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (line, "") }
        return (String(line[..<sp]), line[sp...].trimmingCharacters(in: .whitespaces))
    }

    /// `as alice: select …` → ("alice", "select …").
    static func asLine(_ line: String) -> (String, String)? {
        guard line.hasPrefix("as "), let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[line.index(line.startIndex, offsetBy: 3)..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            return nil
        }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    static func user(_ rest: String, at: SourceLocation, existing: [HarnessActor]) throws(InputError) -> HarnessActor {
        let (name, tail) = split(rest)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw InputError(at, "write 'user <name> [{user_metadata json}] [claims {json}]'")
        }
        if builtInActors.contains(name) {
            throw InputError(at, "'\(name)' is a built-in actor: pick another user name")
        }
        if existing.contains(where: { $0.name == name }) {
            throw InputError(at, "user '\(name)' is declared twice in this scenario")
        }
        var meta = "{}"
        var claims = "{}"
        var tailText = tail
        if let r = tailText.range(of: "claims ") {
            claims = String(tailText[r.upperBound...]).trimmingCharacters(in: .whitespaces)
            tailText = String(tailText[..<r.lowerBound]).trimmingCharacters(in: .whitespaces)
        }
        if tailText.hasPrefix("metadata ") {
            tailText = String(tailText.dropFirst(9)).trimmingCharacters(in: .whitespaces)
        }
        if !tailText.isEmpty { meta = tailText }
        for (what, json) in [("user_metadata", meta), ("claims", claims)] {
            guard (try? JSONSerialization.jsonObject(with: Data(json.utf8))) is [String: Any] else {
                throw InputError(at, "\(what) of user '\(name)' is not a JSON object: \(json)")
            }
        }
        return HarnessActor.user(name, metadata: meta, claims: claims)
    }

    static func expectation(_ rest: String, at: SourceLocation) throws(InputError) -> Expectation {
        let words = rest.split(separator: " ").map { String($0).lowercased() }
        func values(_ s: String) -> [String?] {
            s.components(separatedBy: "|").map { v in
                let t = v.trimmingCharacters(in: .whitespaces)
                return t == "null" || t == "NULL" ? nil : t
            }
        }
        switch words.first ?? "" {
        case "ok", "succeeds": if words.count == 1 { return .succeeds }
        case "denied":
            if words == ["denied", "by", "rls"] { return .deniedByRLS }
            if words == ["denied", "by", "privilege"] { return .deniedByPrivilege }
        case "sqlstate":
            if words.count == 2, words[1].count == 5, words[1].allSatisfy({ $0.isLetter || $0.isNumber }) {
                return .sqlState(words[1].uppercased())
            }
        case "value":
            let v = values(String(rest.dropFirst(5)))
            if v.count == 1 { return .value(v[0]) }
        case "values": return .values(values(String(rest.dropFirst(6))))
        case "row": return .row(values(String(rest.dropFirst(3))))
        default:
            if let first = words.first, let n = Int(first), n >= 0 {
                if words.count == 2, words[1] == "row" || words[1] == "rows" { return .rowCount(n) }
                if words.count == 3, words[1] == "row" || words[1] == "rows", words[2] == "affected" {
                    return .affected(n)
                }
            }
        }
        throw InputError(
            at,
            "unknown expectation '\(rest)': use ok, N rows, N rows affected, value V, values A | B, row A | B, denied by rls, denied by privilege or sqlstate XXXXX"
        )
    }

    /// `{name}` and `{name.email}` of users declared in this scenario; anything else that looks
    /// like a placeholder would be pasted into SQL as it is.
    static func placeholders(in text: String, users: [HarnessActor], at: SourceLocation) throws(InputError) {
        let ns = text as NSString
        for m in placeholder.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let whole = ns.substring(with: m.range)
            let name = ns.substring(with: m.range(at: 1))
            let field = m.range(at: 2).location == NSNotFound ? nil : ns.substring(with: m.range(at: 2))
            let known = users.contains { $0.name == name }
            if known && (field == nil || field == "email") { continue }
            if known {
                throw InputError(
                    at,
                    "unknown placeholder \(whole): use {\(name)} for the user's id or {\(name).email} for their email")
            }
            throw InputError(
                at,
                "unknown placeholder \(whole): declare 'user \(name)' in this scenario "
                    + (users.isEmpty
                        ? "(it declares no users)" : "(its users: \(users.map(\.name).joined(separator: ", ")))"))
        }
    }

    static let placeholder = try! NSRegularExpression(pattern: "\\{([A-Za-z_][A-Za-z0-9_-]*)(?:\\.([A-Za-z0-9_]+))?\\}")

    /// A SQL step is one statement, and never transaction control: each step runs in its own
    /// savepoint of a transaction rlskit rolls back.
    static func oneStatement(_ st: Scenario.Step) throws(InputError) {
        func at(_ line: Int) -> SourceLocation {
            SourceLocation(
                file: st.location.file,
                line: line >= 1 && line <= st.lines.count ? st.lines[line - 1] : st.location.line)
        }
        if let nul = st.text.unicodeScalars.firstIndex(of: "\u{0}") {
            let line = 1 + st.text.unicodeScalars[..<nul].count { $0 == "\n" }
            throw InputError(at(line), "the step contains a NUL byte, which PostgreSQL cannot accept: remove it")
        }
        let (verb, _) = split(st.text)
        if verb == "upload" || verb == "remove" { return }
        let statements = SQLScanner.statements(in: st.text)
        guard let first = statements.first else {
            throw InputError(st.location, "step has no SQL after 'as \(st.actor):'")
        }
        if statements.count > 1 {
            throw InputError(
                at(statements[1].line),
                "one statement per step: put '\(String(statements[1].text.prefix(40)))' in its own 'as \(st.actor):' step"
            )
        }
        if first.kind == .meta {
            throw InputError(
                at(first.line), "'\(first.text.prefix(20))' is a psql meta-command, not SQL: write the SQL itself")
        }
        let words = SQLScanner.keywords(first.text, count: 2)
        // COPY over the connection waits for data a step never sends or reads.
        if words.first == "copy" {
            let all = SQLScanner.keywords(first.text, count: .max)
            if all.contains("stdin") || all.contains("stdout") {
                throw InputError(
                    at(first.line),
                    "COPY … FROM STDIN / TO STDOUT in a step exchanges data rlskit neither sends nor reads: write an insert or a select instead"
                )
            }
        }
        let control: Bool
        switch words.first ?? "" {
        case "begin", "commit", "rollback", "savepoint", "release", "abort", "end": control = true
        case "start", "prepare": control = words.count > 1 && words[1] == "transaction"
        default: control = false
        }
        if control {
            throw InputError(
                at(first.line),
                "'\(words.joined(separator: " "))' controls the transaction, which rlskit owns "
                    + "(each step runs in a savepoint, everything is rolled back): remove it")
        }
    }

    /// Validates `upload`/`remove` steps: exactly a bucket and an object name.
    static func storageCall(_ st: Scenario.Step, users: [HarnessActor]) throws(InputError) {
        let (verb, rest) = split(st.text)
        guard verb == "upload" || verb == "remove" else { return }
        let parts = rest.split(separator: " ")
        guard parts.count == 2 else {
            throw InputError(
                st.location, "write '\(verb) <bucket> <object name>', e.g. '\(verb) avatars {alice}/a.png'")
        }
    }
}
