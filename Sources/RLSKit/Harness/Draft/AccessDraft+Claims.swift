import Foundation

/// Where today's policies (and the functions they call) read JWT claims, for the draft's `role ?`
/// skeletons. Found with the SQL lexer, so quotes and comments cannot fool it; shown as comments,
/// never as answers.
extension AccessDraft {
    /// One claim read: its path (`app_metadata`, `role`) and the value it is compared with, if any.
    struct ClaimRead: Hashable {
        var path: [String]
        var value: String?
        var text: String {
            path.joined(separator: ".") + (value.map { " = " + SQL.literal($0) } ?? "")
        }
    }

    /// Claims every token carries: reading them is not about a role.
    static let platformClaims: Set<String> = [
        "sub", "role", "aud", "exp", "iat", "email", "phone", "aal", "amr", "session_id", "is_anonymous",
    ]

    static func claimReads(_ sql: String) -> [ClaimRead] {
        let scalars = Array(sql.unicodeScalars)
        let tokens = SQLLexer.tokens(scalars).filter { !$0.isTrivia }
        func text(_ i: Int) -> String {
            i < tokens.count ? String(String.UnicodeScalarView(scalars[tokens[i].start..<tokens[i].end])) : ""
        }
        func string(_ i: Int) -> String? {
            guard i < tokens.count, tokens[i].kind == .string else { return nil }
            let t = text(i)
            guard t.hasPrefix("'"), t.hasSuffix("'"), t.count >= 2 else { return nil }
            return String(t.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
        }
        // Casts, closing parentheses and `AS jwt` between the parts of `(auth.jwt() -> 'a'::text) ->> 'b'`.
        let filler: Set<String> = [")", "::", "text", "json", "jsonb", "as", "jwt", ",", "true"]
        func skip(_ i: inout Int) { while i < tokens.count, filler.contains(text(i).lowercased()) { i += 1 } }
        var out: [ClaimRead] = []
        var i = 0
        while i < tokens.count {
            var path: [String] = []
            var j = i + 1
            let setting = string(i) ?? ""
            if text(i).lowercased() == "jwt", text(i + 1) == "(", text(i + 2) == ")" {
                j = i + 3
            } else if setting.hasPrefix("request.jwt.claim.") {
                path = [String(setting.dropFirst("request.jwt.claim.".count))]
            } else if setting != "request.jwt.claims" {
                i += 1
                continue
            }
            skip(&j)
            while ["->", "->>"].contains(text(j)), let key = string(j + 1) {
                path.append(key)
                j += 2
                skip(&j)
            }
            var value: String?
            if ["=", "<>", "!="].contains(text(j)) { value = string(j + 1) }
            if let first = path.first, !(path.count == 1 && platformClaims.contains(first)) {
                out.append(ClaimRead(path: path, value: value))
            }
            i = max(j, i + 1)
        }
        return out
    }

    /// Each claim read, in first-seen order, with where it is read.
    static func claimSources(tables: [Table], storagePolicies: [Policy], helpers: [String: String]) -> [(
        ClaimRead, [String]
    )] {
        var order: [ClaimRead] = []
        var places: [ClaimRead: [String]] = [:]
        func note(_ sql: String?, _ place: String) {
            guard let sql else { return }
            for r in claimReads(sql) {
                if places[r] == nil { order.append(r) }
                if !(places[r] ?? []).contains(place) { places[r, default: []].append(place) }
            }
            for f in Catalog.functionNames(in: sql) {
                guard let body = helpers[f] else { continue }
                for r in claimReads(body) {
                    if places[r] == nil { order.append(r) }
                    let via = "\(f)(), called by \(place)"
                    if !(places[r] ?? []).contains(via) { places[r, default: []].append(via) }
                }
            }
        }
        for t in tables {
            for p in t.policies {
                for e in [p.using, p.check] {
                    note(e, "policy \(SQL.ident(p.name, always: true)) on \(t.qualifiedName)")
                }
            }
        }
        for p in storagePolicies {
            for e in [p.using, p.check] { note(e, "policy \(SQL.ident(p.name, always: true)) on storage.objects") }
        }
        return order.map { ($0, places[$0]!) }
    }

    /// A `role ?` skeleton per claim read: the user names the role and says where the platform puts it.
    static func roleSkeletons(_ reads: [(ClaimRead, [String])], _ w: inout Writer) {
        for (read, places) in reads {
            w.lines.append("")
            w.lines.append(
                "role ?".padding(toLength: 40, withPad: " ", startingAt: 0) + "# the role's name, or delete this block")
            w.ask(
                "claim",
                "where the platform puts it: app_metadata.KEY = VALUE | KEY = VALUE (a claim the access-token hook adds)"
            )
            w.questions += 1  // the role's name
            w.lines.append("  # read today: \(read.text), in \(places.joined(separator: "; "))")
            if read.path.first == "user_metadata" {
                w.lines.append(
                    "  # user_metadata is written by users themselves (supabase.auth.updateUser): it cannot hold a role"
                )
            }
        }
    }
}
