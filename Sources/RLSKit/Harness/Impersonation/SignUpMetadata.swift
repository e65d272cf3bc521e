import Foundation
import Postgres

/// What an app sends at sign-up (`options.data`): the keys the sign-up triggers on auth.users
/// read from `raw_user_meta_data` (`new.raw_user_meta_data ->> 'full_name'`). A test user
/// signed up without them would fail a NOT NULL or a cast in the trigger, which no real user of
/// the app meets; each gets a value of its own, as a real sign-up form sends.
struct SignUpMetadata: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case text, number, boolean, date }

    /// Keys in the order the triggers read them.
    var keys: [(name: String, kind: Kind)] = []

    static func == (a: SignUpMetadata, b: SignUpMetadata) -> Bool {
        a.keys.map(\.name) == b.keys.map(\.name) && a.keys.map(\.kind) == b.keys.map(\.kind)
    }

    /// The trigger functions on auth.users (and the functions they call by name).
    static let bodiesSQL = """
        with t as (
          select p.prosrc from pg_catalog.pg_trigger g join pg_catalog.pg_proc p on p.oid = g.tgfoid
           where g.tgrelid = to_regclass('auth.users') and not g.tgisinternal)
        select prosrc from t
        union all
        select p.prosrc from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
         where n.nspname not in ('pg_catalog', 'information_schema', 'auth', 'storage', 'extensions')
           -- No regex: a function's name is the project's text, not a pattern.
           and exists (select 1 from t where strpos(lower(t.prosrc), lower(p.proname) || '(') > 0
                                          or strpos(lower(t.prosrc), lower(p.proname) || ' (') > 0)
           and p.prorettype <> 'trigger'::regtype
        """

    static func read(_ conn: PostgresConnection) throws -> SignUpMetadata {
        let bodies: [String] = try conn.query(bodiesSQL).rows.map { try $0.decode(0) }
        return parse(bodies)
    }

    static func parse(_ bodies: [String]) -> SignUpMetadata {
        var out = SignUpMetadata()
        let pattern = #"raw_user_meta_data\s*->>?\s*'([^']+)'"#
        for body in bodies {
            var rest = Substring(body)
            while let r = rest.range(of: pattern, options: [.regularExpression, .caseInsensitive]) {
                let m = String(rest[r])
                rest = rest[r.upperBound...]
                guard let q1 = m.firstIndex(of: "'"), let q2 = m[m.index(after: q1)...].firstIndex(of: "'") else {
                    continue
                }
                let key = String(m[m.index(after: q1)..<q2])
                // An id names another row (an organisation to join): no value of rlskit's is one.
                let lower = key.lowercased()
                if lower == "id" || lower.hasSuffix("_id") || lower.hasSuffix("id") && lower.count <= 4 { continue }
                let wrapped = Self.wrapper(before: body[..<r.lowerBound])
                guard let kind = kind(of: cast(after: rest, wrapped: wrapped)),
                    !out.keys.contains(where: { $0.name == key })
                else {
                    continue
                }
                out.keys.append((key, kind))
            }
        }
        return out
    }

    /// The cast applied to the value read just before `rest`: the first `::type` before the
    /// expression the value is in ends (`)::int`, `, '')::uuid` of a nullif), or nil.
    static func cast(after rest: Substring, wrapped: Int = 0) -> String? {
        var depth = wrapped
        var i = rest.startIndex
        var scanned = 0
        while i < rest.endIndex, scanned < 80 {
            let c = rest[i]
            if c == "(" { depth += 1 }
            if c == ")" {
                depth -= 1
                // Past the call or parenthesis the value was in, and its cast if one follows.
                if depth < (wrapped > 0 ? 0 : -1) { return nil }
            }
            if c == ";" || rest[i...].hasPrefix("raw_user_meta_data") { return nil }
            // A comma outside any parenthesis opened after the value: the value was an argument
            // of its own (a column of a VALUES list): unless a parenthesis closed first, no cast.
            if c == ",", depth == 0 { return nil }
            // Inside nullif(…, '') or coalesce(…, …): the call's cast is the value's.
            if c == ",", wrapped > 0, depth == 1 {
                i = rest.index(after: i)
                scanned += 1
                continue
            }
            if c == ":", rest.index(after: i) < rest.endIndex, rest[rest.index(after: i)] == ":" {
                let after = rest[rest.index(i, offsetBy: 2)...].drop { $0 == " " }
                return String(after.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }).lowercased()
            }
            i = rest.index(after: i)
            scanned += 1
        }
        return nil
    }

    /// How many parentheses deep the value sits in a nullif( or coalesce( call (its first
    /// argument, maybe in bare parentheses of its own): 0 when it is in neither.
    static func wrapper(before: Substring) -> Int {
        var depth = 0
        var levels = 0
        var i = before.endIndex
        while i > before.startIndex {
            i = before.index(before: i)
            if before[i] == ")" { depth += 1 }
            if before[i] == "(" {
                guard depth == 0 else {
                    depth -= 1
                    continue
                }
                levels += 1
                let name = String(before[..<i].reversed().drop { $0 == " " }.prefix { $0.isLetter || $0 == "_" })
                if ["fillun", "ecselaoc"].contains(name.lowercased()) { return levels }
                // A bare parenthesis: the call may be one further out.
                guard name.isEmpty, levels < 3 else { return 0 }
            }
        }
        return 0
    }

    /// A cast to a type rlskit has no safe value for (a uuid naming another row, an enum whose
    /// first label may be a role) leaves the key out, as a form without that field.
    static func kind(of cast: String?) -> Kind? {
        guard let cast, !cast.isEmpty else { return .text }
        let word = String(cast.split(separator: ".").last ?? Substring(cast))
        switch word {
        case "text", "varchar", "character", "citext", "name": return .text
        case "int", "integer", "int4", "bigint", "int8", "smallint", "int2", "numeric", "decimal", "real", "float",
            "double":
            return .number
        case "bool", "boolean": return .boolean
        case "date", "timestamp", "timestamptz": return .date
        default: return nil
        }
    }

    /// `user`'s metadata with the keys it lacks filled.
    func filled(_ user: HarnessActor) -> String {
        guard !keys.isEmpty, var object = try? JSON(parsing: user.userMetadata), case .object(let pairs) = object else {
            return user.userMetadata
        }
        var have = Set(pairs.map(\.0))
        var add: [(String, JSON)] = []
        let tag = "rlskit-\(HarnessActor.slug(user.name))-\(user.uid.prefix(8))"
        for (name, kind) in keys where !have.contains(name) {
            have.insert(name)
            let lower = name.lowercased()
            switch kind {
            case .number: add.append((name, .string("1")))
            case .boolean: add.append((name, .string("true")))
            case .date: add.append((name, .string("2024-01-01")))
            case .text:
                if lower.contains("email") {
                    add.append((name, .string(user.email)))
                } else if lower.contains("avatar") || lower.contains("url") || lower.contains("picture") {
                    add.append((name, .string("https://example.test/\(tag).png")))
                } else {
                    add.append((name, .string(tag)))
                }
            }
        }
        object = .object(pairs + add)
        return object.rendered(pretty: false)
    }
}
