/// The pgTAP form of a kill suggestion: two users, the owner and another, and the assertion the
/// mutant would fail. Written with basejump's test helpers (`tests.authenticate_as`) when the
/// project's pgTAP files use them, else with the role and claims set by hand.
struct PgTAPSuggestion {
    /// The project's pgTAP files call `tests.authenticate_as`.
    var helpers: Bool

    static let ids = [
        "owner": "00000000-0000-0000-0000-00000000000a", "other": "00000000-0000-0000-0000-00000000000b",
    ]

    func uid(_ user: String) -> String {
        helpers ? "tests.get_supabase_uid('\(user)')" : "'\(Self.ids[user]!)'::uuid"
    }

    var users: String {
        helpers
            ? "select tests.create_supabase_user('owner');\nselect tests.create_supabase_user('other');"
            : "insert into auth.users (id, email) values ('\(Self.ids["owner"]!)', 'owner@example.test'), "
                + "('\(Self.ids["other"]!)', 'other@example.test');"
    }

    func actAs(_ user: String) -> String {
        if user == "anon" {
            return helpers
                ? "select tests.clear_authentication();"
                : "set local role anon;\nset local request.jwt.claims to '{\"role\": \"anon\"}';"
        }
        return helpers
            ? "select tests.authenticate_as('\(user)');"
            : "set local role authenticated;\nset local request.jwt.claims to '{\"sub\": \"\(Self.ids[user]!)\", \"role\": \"authenticated\"}';"
    }

    static func literal(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }

    func isEmpty(_ query: String, _ says: String) -> String {
        "select is_empty($$ \(query) $$, \(Self.literal(says)));"
    }

    func refused(_ statement: String, _ says: String) -> String {
        "select throws_ok($$ \(statement) $$, '42501', null, \(Self.literal(says)));"
    }

    /// `columns`: the table's, in order (an UPDATE without an owner column sets the first).
    func text(_ m: Mutant, columns: [String] = []) -> String {
        let t = m.table
        let owner = m.hint.ownerColumn.map { SQL.ident($0) }
        var lines = ["-- in a pgTAP file, inside begin … rollback; one more test in plan()", users]
        func ownerRow() {
            if let owner {
                lines.append(
                    "insert into \(t) (\(owner)) values (\(uid("owner")));   -- fill its other required columns")
            } else {
                lines.append("-- a row of \(t) (insert it here as the file's owner role)")
            }
        }
        func mine(_ sql: String) -> String { owner.map { sql + " where \($0) = \(uid("owner"))" } ?? sql }
        func rowsOf(_ command: String, as user: String) {
            let whose = owner != nil ? "owner's" : "the"
            let who = user == "anon" ? "anon" : user
            switch command {
            case "INSERT":
                let row =
                    owner.map { "insert into \(t) (\($0)) values (\(uid("owner")))" }
                    ?? "insert into \(t) default values"
                lines.append(refused(row, "\(who) cannot insert a row of \(t)\(owner != nil ? " for owner" : "")"))
            case "UPDATE":
                let c = owner ?? columns.first.map { SQL.ident($0) } ?? "id"
                lines.append(
                    isEmpty(
                        mine("update \(t) set \(c) = \(c)") + " returning 1",
                        "\(who) updates none of \(whose) rows of \(t)"))
            case "DELETE":
                lines.append(
                    isEmpty(mine("delete from \(t)") + " returning 1", "\(who) deletes none of \(whose) rows of \(t)"))
            default:
                lines.append(isEmpty(mine("select 1 from \(t)"), "\(who) reads none of \(whose) rows of \(t)"))
            }
        }
        switch m.hint.effect {
        case .function(let f):
            ownerRow()
            lines.append(actAs("other"))
            lines.append(
                "select throws_ok($$ select \(SQL.qualified(f.schema, f.name))(/* owner's row */) $$, "
                    + "\(Self.literal("other is refused by \(f.display)")));")
            return lines.joined(separator: "\n")
        case .columns(let command, let role, let columns):
            guard let column = columns.first(where: { $0 != m.hint.ownerColumn }) ?? columns.first else { break }
            let c = SQL.ident(column)
            ownerRow()
            lines.append(actAs(role == "anon" ? "anon" : "owner"))
            let statement =
                switch command {
                case "SELECT": "select \(c) from \(t)"
                case "INSERT": "insert into \(t) (\(c)) values (null)"
                default: "update \(t) set \(c) = \(c)"
                }
            lines.append(refused(statement, "\(role) cannot \(command.lowercased()) \(column) of \(t)"))
            return lines.joined(separator: "\n")
        default: break
        }
        if t == "storage.objects" { return storage(m, lines) }
        // An insert test needs no row beforehand (the owner's could take the key it writes).
        let inserts: Bool =
            switch m.hint.effect {
            case .otherUsersRows(let c), .anonymous(let c): c == "INSERT"
            default: false
            }
        if !inserts { ownerRow() }
        switch m.hint.effect {
        case .otherUsersRows(let command) where m.hint.newRow && command == "UPDATE" && owner != nil:
            lines.append(actAs("owner"))
            // No WHERE: one that reads the row would make the SELECT policies check the new row too.
            lines.append(
                refused("update \(t) set \(owner!) = \(uid("other"))", "owner cannot hand a row of \(t) to other"))
        case .otherUsersRows(let command) where m.kind == "identity-column" && owner != nil:
            // Another column may be narrower as well as wider: the owner must still reach the row.
            lines[0] = lines[0].replacingOccurrences(of: "one more test", with: "two more tests")
            lines.append(actAs("owner"))
            lines.append(
                "select isnt_empty($$ \(mine("select 1 from \(t)")) $$, \(Self.literal("owner reads their rows of \(t)")));"
            )
            lines.append(actAs("other"))
            rowsOf(command, as: "other")
        case .otherUsersRows(let command):
            lines.append(actAs("other"))
            rowsOf(command, as: "other")
        case .anonymous(let command):
            lines.append(actAs("anon"))
            rowsOf(command, as: "anon")
        default:
            lines.append(actAs(owner != nil ? "other" : "anon"))
            rowsOf("SELECT", as: owner != nil ? "other" : "anon")
        }
        return lines.joined(separator: "\n")
    }

    func storage(_ m: Mutant, _ start: [String]) -> String {
        var lines = start
        let bucket = Self.literal(KillSuggestion.bucketId(m) ?? "<bucket>")
        let folder = "(storage.foldername(name))[1] = \(uid("owner"))::text"
        let command: String =
            switch m.hint.effect {
            case .otherUsersRows(let c), .anonymous(let c): c
            default: "SELECT"
            }
        lines.append(
            "insert into storage.objects (bucket_id, name) values (\(bucket), \(uid("owner"))::text || '/a.txt');")
        lines.append(actAs("other"))
        let mine = "bucket_id = \(bucket) and \(folder)"
        switch command {
        case "INSERT":
            lines.append(
                refused(
                    "insert into storage.objects (bucket_id, name) values (\(bucket), \(uid("owner"))::text || '/b.txt')",
                    "other cannot upload into owner's folder"))
        case "UPDATE":
            lines.append(
                isEmpty(
                    "update storage.objects set name = name where \(mine) returning 1",
                    "other moves none of owner's files"))
        case "DELETE":
            lines.append(
                isEmpty("delete from storage.objects where \(mine) returning 1", "other deletes none of owner's files"))
        default:
            lines.append(isEmpty("select 1 from storage.objects where \(mine)", "other reads none of owner's files"))
        }
        return lines.joined(separator: "\n")
    }
}
