/// Who may do something to a row: one principal, or several joined by `or`
/// (`update owner or admin`, `delete members with role owner, admin`).
struct Who: Sendable, Hashable, CustomStringConvertible {
    enum Principal: Sendable, Hashable {
        case anyone, signedIn, owner, nobody
        /// Members of the row's group; with roles, only members holding one of them.
        case members(roles: [String])
        /// A user holding a role declared in a `role` block.
        case role(String)
        /// Every one of these at once: `owner and members` (the author, while a member).
        indirect case all([Principal])
    }

    var principals: [Principal]

    static let anyone = Who(principals: [.anyone])
    static let signedIn = Who(principals: [.signedIn])
    static let owner = Who(principals: [.owner])
    static let nobody = Who(principals: [.nobody])
    static let members = Who(principals: [.members(roles: [])])

    /// What an actor is to one row: the facts a `who` is judged against.
    struct Standing: Sendable {
        var signedIn = false
        var isOwner = false
        /// The actor's role in the row's group ("" when the membership has no role column); nil outside it.
        var memberRole: String?
        /// Roles the platform really gave the actor (claims it cannot write itself).
        var roles: Set<String> = []
    }

    func allows(_ s: Standing) -> Bool { principals.contains { Self.allows($0, s) } }

    static func allows(_ p: Principal, _ s: Standing) -> Bool {
        switch p {
        case .anyone: true
        case .signedIn: s.signedIn
        case .owner: s.isOwner
        case .nobody: false
        case .members(let roles): s.memberRole.map { roles.isEmpty || roles.contains($0) } ?? false
        case .role(let r): s.roles.contains(r)
        case .all(let parts): parts.allSatisfy { allows($0, s) }
        }
    }

    /// Every principal named, those inside `and` too.
    var flat: [Principal] { principals.flatMap { if case .all(let p) = $0 { p } else { [$0] } } }
    var mentionsOwner: Bool { flat.contains(.owner) }
    var mentionsMembers: Bool { flat.contains { if case .members = $0 { true } else { false } } }
    var roleNames: [String] { flat.compactMap { if case .role(let r) = $0 { r } else { nil } } }
    var memberRoles: [String] {
        flat.flatMap { if case .members(let r) = $0 { r } else { [String]() } }
    }

    var description: String { principals.map(Self.describe).joined(separator: " or ") }

    static func describe(_ p: Principal) -> String {
        switch p {
        case .anyone: "anyone"
        case .signedIn: "signed-in"
        case .owner: "owner"
        case .nobody: "nobody"
        case .members(let r): r.isEmpty ? "members" : "members with role " + r.joined(separator: ", ")
        case .role(let r): r
        case .all(let parts): parts.map(describe).joined(separator: " and ")
        }
    }

    static let keywords = ["anyone", "signed-in", "owner", "members", "nobody"]
    static let usage = "anyone | signed-in | owner | members | members with role R | a declared role | nobody"

    /// Parses the words after a setting's key. Role names are checked later, once every
    /// `role` block is known.
    static func parse(_ words: [String], key: String, at: SourceLocation) throws(InputError) -> Who {
        guard !words.isEmpty else { throw InputError(at, "'\(key)' needs a value: \(usage)") }
        var items: [[String]] = [[]]
        for w in words {
            if w == "or" { items.append([]) } else { items[items.count - 1].append(w) }
        }
        var out: [Principal] = []
        for orItem in items {
            var parts: [[String]] = [[]]
            for w in orItem {
                if w == "and" { parts.append([]) } else { parts[parts.count - 1].append(w) }
            }
            if parts.count > 1 {
                var conj: [Principal] = []
                for part in parts {
                    guard !part.isEmpty else {
                        throw InputError(
                            at, "'\(key)': 'and' needs a value on both sides, e.g. '\(key) owner and members'")
                    }
                    let w = try parse(part, key: key, at: at)
                    guard w.principals.count == 1, w.principals != [.nobody], w.principals != [.anyone] else {
                        throw InputError(
                            at,
                            "'\(key)': 'and' joins owner, signed-in, members or roles, e.g. '\(key) owner and members'")
                    }
                    conj.append(w.principals[0])
                }
                out.append(.all(conj))
                continue
            }
            let item = orItem
            guard let first = item.first else {
                throw InputError(at, "'\(key)': 'or' needs a value on both sides, e.g. '\(key) owner or admin'")
            }
            let p: Principal
            switch first {
            case "anyone": p = .anyone
            case "signed-in": p = .signedIn
            case "owner": p = .owner
            case "nobody": p = .nobody
            case "members":
                if item.count == 1 {
                    p = .members(roles: [])
                    break
                }
                guard item.count >= 4, item[1] == "with", item[2] == "role" else {
                    throw InputError(
                        at,
                        "'\(key)': write 'members' or 'members with role R' (several roles: 'members with role owner, admin')"
                    )
                }
                let roles = item.dropFirst(3).flatMap(AccessFile.Parser.listItems)
                guard !roles.isEmpty else {
                    throw InputError(at, "'\(key)': name at least one role after 'members with role'")
                }
                p = .members(roles: roles)
                out.append(p)
                continue
            default:
                guard first.first?.isLetter == true || first.first == "_",
                    first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
                else {
                    throw InputError(at, "unknown \(key) value '\(first)': use \(usage)")
                }
                p = .role(first)
            }
            if item.count > 1 {
                throw InputError(
                    at,
                    "'\(key)': '\(item.joined(separator: " "))' is not one value: join several with 'or', e.g. '\(key) owner or admin'"
                )
            }
            out.append(p)
        }
        if out.contains(.nobody) && out.count > 1 {
            throw InputError(at, "'\(key)': 'nobody' cannot be combined with other values: keep one")
        }
        var seen = Set<Principal>()
        for p in out where !seen.insert(p).inserted {
            throw InputError(at, "'\(key)': '\(Who(principals: [p]))' is named twice: keep one")
        }
        return Who(principals: out)
    }
}
