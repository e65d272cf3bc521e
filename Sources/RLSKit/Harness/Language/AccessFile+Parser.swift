extension AccessFile {
    /// Reads an access file line by line: a block line (`table`, `bucket`, `expose`) at the
    /// margin, its settings indented below it; `finish` checks what each block must say.
    struct Parser {
        enum Block {
            case none
            case table(Int)
            case bucket(Int)
            case members(Int)
            case role(Int)
        }
        var file: AccessFile
        var block = Block.none
        /// Where each block's name was first declared ("table " + name, "role " + name, …), so
        /// that a duplicate is found without a scan of every earlier block.
        var declared: [String: SourceLocation] = [:]
        /// Filled by `finish`: what later checks look names up in.
        var known = Known()

        struct Known {
            var tables: [String: TableIntent] = [:]
            var memberships: [String: MembersIntent] = [:]
            var roles: Set<String> = []
            var memberRoles: Set<String> = []
        }

        /// One line of the file: its words, where it is, and the text for settings that take SQL.
        struct Line {
            let words: [String]
            let text: String
            let at: SourceLocation
            var key: String { words[0] }

            /// The one value of a setting, from `allowed`.
            func value(_ allowed: [String]) throws(InputError) -> String {
                guard words.count == 2 else {
                    throw InputError(at, "'\(key)' takes one value: \(allowed.joined(separator: " | "))")
                }
                guard allowed.contains(words[1]) else {
                    throw InputError(at, "unknown \(key) value '\(words[1])': use \(allowed.joined(separator: " | "))")
                }
                return words[1]
            }

            /// Each setting once per block: a second one is a conflict or a leftover.
            func once(_ setting: String, _ settings: inout [String: SourceLocation], _ owner: String) throws(InputError)
            {
                if let prev = settings[setting] {
                    throw InputError(at, "'\(setting)' is already set at line \(prev.line) for \(owner): keep one")
                }
                settings[setting] = at
            }
        }

        mutating func line(_ raw: String, at: SourceLocation) throws(InputError) {
            let text = stripComment(raw)
            let words = splitWords(text)
            guard !words.isEmpty else { return }
            let line = Line(words: words, text: text, at: at)
            let indented = raw.first == " " || raw.first == "\t"
            guard indented else { return try blockLine(line) }
            if let e = unanswered(line) { throw e }
            // Each block is taken out, changed and put back: handing `&file.tables[t]` to a method
            // of `self` would copy every block of the file for each line.
            switch block {
            case .none:
                throw InputError(at, "indented '\(line.key)' outside a block: put it under a 'table' or 'bucket' line")
            case .table(let t):
                var x = file.tables[t]
                try tableSetting(line, &x)
                file.tables[t] = x
            case .bucket(let b):
                var x = file.buckets[b]
                try bucketSetting(line, &x)
                file.buckets[b] = x
            case .members(let m):
                var x = file.memberships[m]
                try membersSetting(line, &x)
                file.memberships[m] = x
            case .role(let r):
                var x = file.roles[r]
                try roleSetting(line, &x)
                file.roles[r] = x
            }
        }

        /// Records `key` (a block's kind and name) and returns where it was declared before, if it was.
        mutating func firstDeclared(_ key: String, at: SourceLocation) -> SourceLocation? {
            if let prev = declared[key] { return prev }
            declared[key] = at
            return nil
        }

        mutating func blockLine(_ line: Line) throws(InputError) {
            let words = line.words
            let at = line.at
            switch line.key {
            case "expose":
                guard words.count > 1 else {
                    throw InputError(at, "'expose' needs schema names, e.g. 'expose public api'")
                }
                for w in words.dropFirst() {
                    for part in Self.listItems(w) {
                        guard let names = nameParts(part), names.count == 1 else {
                            throw InputError(
                                at,
                                "'\(part)' is not a schema name: write it as is, or in \"double quotes\" when it needs them"
                            )
                        }
                        file.exposedSchemas.append(names[0])
                        file.exposedLocations.append(at)
                    }
                }
                block = .none
            case "header":
                file.headers.append(try header(line, file.headers))
                block = .none
            case "function":
                let f = try function(line)
                if let prev = firstDeclared("function " + f.display, at: at) {
                    throw InputError(at, "\(f.display) is declared twice (first at line \(prev.line)): keep one")
                }
                file.functions.append(f)
                block = .none
            case "members" where words.count >= 2 && words[1] == "claim":
                guard words.count == 3, let path = Self.claimPath(words[2]) else {
                    throw InputError(
                        at,
                        "write 'members claim app_metadata.KEY' (the claim the service sets to the user's group), e.g. 'members claim app_metadata.org_id'"
                    )
                }
                var m = MembersIntent(schema: "", name: "", location: at)
                m.claimPath = path
                if let prev = firstDeclared("table " + m.qualifiedName, at: at) {
                    throw InputError(
                        at, "\(m.qualifiedName) is declared twice (first at line \(prev.line)): keep one block"
                    )
                }
                file.memberships.append(m)
                block = .members(file.memberships.count - 1)
            case "table", "members":
                let (schema, name) = try tableName(line)
                let q = SQL.qualified(schema, name)
                if let prev = firstDeclared("table " + q, at: at) {
                    throw InputError(
                        at, "table \(q) is declared twice (first at line \(prev.line)): keep one block")
                }
                if line.key == "table" {
                    file.tables.append(TableIntent(schema: schema, name: name, location: at))
                    block = .table(file.tables.count - 1)
                } else {
                    file.memberships.append(MembersIntent(schema: schema, name: name, location: at))
                    block = .members(file.memberships.count - 1)
                }
            case "role":
                if words == ["role", "?"] {
                    throw InputError(
                        at,
                        "role ?: the role is not named yet: replace '?' with its name (e.g. admin), or delete the block"
                    )
                }
                guard words.count == 2, Self.isRoleName(words[1]) else {
                    throw InputError(
                        at,
                        "write 'role name' (letters, digits, '_' and '-'), e.g. 'role admin', with its claim indented below"
                    )
                }
                if Self.actorNames.contains(words[1]) {
                    throw InputError(
                        at,
                        "'\(words[1])' is already the name of one of rlskit's own actors in reports: name the role differently (e.g. 'role app-admin')"
                    )
                }
                if Who.keywords.contains(words[1]) || words[1] == "or" || words[1] == "and" {
                    throw InputError(
                        at, "'\(words[1])' already means something in a who value: name the role differently")
                }
                if let prev = firstDeclared("role " + words[1], at: at) {
                    throw InputError(
                        at, "role \(words[1]) is declared twice (first at line \(prev.line)): merge the blocks"
                    )
                }
                file.roles.append(RoleIntent(name: words[1], location: at))
                block = .role(file.roles.count - 1)
            case "bucket":
                guard words.count == 2 else { throw InputError(at, "write 'bucket name' (one bucket per block)") }
                if let prev = firstDeclared("bucket " + words[1], at: at) {
                    throw InputError(
                        at,
                        "bucket \(words[1]) is declared twice (first at line \(prev.line)): merge the blocks")
                }
                file.buckets.append(BucketIntent(id: words[1], location: at))
                block = .bucket(file.buckets.count - 1)
            default:
                throw InputError(
                    at,
                    "unknown line '\(line.key)': start a block with 'table', 'members', 'role', 'bucket', 'expose' or 'header' (settings are indented)"
                )
            }
        }

        /// `table schema.name` / `members schema.name`; the schema defaults to public.
        func tableName(_ line: Line) throws(InputError) -> (String, String) {
            guard line.words.count == 2 else {
                throw InputError(
                    line.at,
                    "write '\(line.key) schema.name' (one table per block; \"double quotes\" around names with spaces or symbols)"
                )
            }
            guard let parts = nameParts(line.words[1]), parts.count <= 2 else {
                throw InputError(
                    line.at,
                    "'\(line.words[1])' is not a table name: write schema.name, with \"double quotes\" around names that need them"
                )
            }
            return (parts.count == 2 ? parts[0] : "public", parts.last!)
        }

        /// `app_metadata.KEY`: the only place a claim the user cannot write lives in every token.
        static func claimPath(_ w: String) -> [String]? {
            let path = w.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard path.count == 2, path[0] == "app_metadata", isRoleName(path[1]) else { return nil }
            return path
        }

        /// The items of a comma-separated list word, cut only at commas outside quotes and parentheses.
        static func listItems(_ word: String) -> [String] {
            AccessFile.splitTopLevel(Substring(word)).map(String.init).filter { !$0.isEmpty }
        }

        static func isRoleName(_ s: String) -> Bool {
            guard let f = s.first, f.isLetter || f == "_" else { return false }
            return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        }

        /// One column name as the only value of a setting.
        func column(_ line: Line, example: String) throws(InputError) -> String {
            guard line.words.count == 2, let col = nameParts(line.words[1]), col.count == 1 else {
                throw InputError(line.at, "'\(line.key)' takes one column name, e.g. '\(line.key) \(example)'")
            }
            return col[0]
        }

        func who(_ line: Line) throws(InputError) -> Who {
            try Who.parse(Array(line.words.dropFirst()), key: line.key, at: line.at)
        }

        func tableSetting(_ line: Line, _ table: inout TableIntent) throws(InputError) {
            let what = "table \(table.qualifiedName)"
            let key = line.key
            let at = line.at
            switch key {
            case "owner":
                var l = line
                if line.words.count == 4 && line.words[2] == "through" {
                    guard let parts = nameParts(line.words[3]), parts.count <= 2 else {
                        throw InputError(at, "'\(line.words[3])' is not a table name: write schema.name")
                    }
                    table.ownerThrough = SQL.qualified(parts.count == 2 ? parts[0] : "public", parts.last!)
                    l = Line(words: Array(line.words.prefix(2)), text: line.text, at: at)
                } else if line.words.count == 4 {
                    throw InputError(
                        at,
                        "write 'owner column' or 'owner column through schema.table' (the row's owner is that of the row the column points at)"
                    )
                }
                let col = try column(l, example: "user_id")
                try line.once("owner", &table.settings, what)
                table.owner = col
            case "group":
                var l = line
                if line.words.count == 4 && line.words[2] == "through" {
                    guard let parts = nameParts(line.words[3]), parts.count <= 2 else {
                        throw InputError(at, "'\(line.words[3])' is not a table name: write schema.name")
                    }
                    table.through = SQL.qualified(parts.count == 2 ? parts[0] : "public", parts.last!)
                    l = Line(words: Array(line.words.prefix(2)), text: line.text, at: at)
                } else if line.words.count > 2 {
                    throw InputError(
                        at,
                        "write 'group column' or 'group column through schema.table' (the row's group is that of the row the column points at)"
                    )
                }
                let col = try column(l, example: "team_id")
                try line.once("group", &table.settings, what)
                table.group = col
            case "read":
                let v = try who(line)
                try line.once("read", &table.settings, what)
                table.read = v
            case "write":
                let w = try who(line)
                try line.once("write", &table.settings, what)
                // insert/update/delete lines override 'write', whichever comes first.
                if table.settings["insert"] == nil { table.insert = w }
                if table.settings["update"] == nil { table.update = w }
                if table.settings["delete"] == nil { table.delete = w }
            case "insert", "update", "delete":
                let w = try who(line)
                try line.once(key, &table.settings, what)
                switch key {
                case "insert": table.insert = w
                case "update": table.update = w
                default: table.delete = w
                }
            case "move":
                let w = try who(line)
                try line.once("move", &table.settings, what)
                table.move = w
            case "protect":
                var names: [String] = []
                for w in line.words.dropFirst() {
                    for part in Self.listItems(w) {
                        guard let n = nameParts(part), n.count == 1 else {
                            throw InputError(at, "'protect': '\(part)' is not a column name")
                        }
                        names.append(n[0])
                    }
                }
                guard !names.isEmpty else {
                    throw InputError(at, "'protect' lists columns callers may not set, e.g. 'protect is_admin, plan'")
                }
                try line.once("protect", &table.settings, what)
                table.protected = names
            case "seed":
                let (column, expr) = try seed(line)
                try line.once("seed \(column)", &table.settings, what)
                table.seeds.append((column, expr))
            default:
                throw InputError(
                    at,
                    "unknown table setting '\(key)': use owner, group, read, write, insert, update, delete, protect or seed"
                )
            }
        }

        func membersSetting(_ line: Line, _ m: inout MembersIntent) throws(InputError) {
            let what = "members \(m.qualifiedName)"
            if m.byClaim {
                switch line.key {
                case "role":
                    guard line.words.count == 2, let path = Self.claimPath(line.words[1]) else {
                        throw InputError(
                            line.at,
                            "'role' takes the claim holding the member's role, e.g. 'role app_metadata.org_role'")
                    }
                    try line.once("role", &m.settings, what)
                    m.roleClaimPath = path
                    return
                case "roles": break
                default:
                    throw InputError(
                        line.at,
                        "unknown setting '\(line.key)' for membership by claim: use role (the claim holding the role) and roles"
                    )
                }
            }
            switch line.key {
            case "group":
                let c = try column(line, example: "team_id")
                try line.once("group", &m.settings, what)
                m.groupColumn = c
            case "user":
                let c = try column(line, example: "user_id")
                try line.once("user", &m.settings, what)
                m.userColumn = c
            case "role":
                let c = try column(line, example: "role")
                try line.once("role", &m.settings, what)
                m.roleColumn = c
            case "roles":
                let values = line.words.dropFirst().flatMap(Self.listItems)
                guard values.count >= 1 else {
                    throw InputError(
                        line.at, "'roles' lists the role values, the owner's first: e.g. 'roles owner member'")
                }
                if let d = Dictionary(grouping: values, by: { $0 }).first(where: { $0.value.count > 1 }) {
                    throw InputError(line.at, "'roles': '\(d.key)' is listed twice: keep one")
                }
                try line.once("roles", &m.settings, what)
                m.roles = values
            case "read", "add", "remove", "leave", "change-role":
                let w = try who(line)
                try line.once(line.key, &m.settings, what)
                switch line.key {
                case "read": m.read = w
                case "add": m.add = w
                case "remove": m.remove = w
                case "leave": m.leave = w
                default: m.changeRole = w
                }
            default:
                throw InputError(
                    line.at,
                    "unknown members setting '\(line.key)': use group, user, role, roles, read, add, remove, leave or change-role"
                )
            }
        }

        /// `claim app_metadata.role = admin` or `claim user_role = moderator`.
        func roleSetting(_ line: Line, _ r: inout RoleIntent) throws(InputError) {
            if line.key == "row" {
                try roleRow(line, &r)
                return
            }
            guard line.key == "claim" else {
                throw InputError(
                    line.at,
                    "unknown role setting '\(line.key)': use claim (e.g. 'claim app_metadata.role = admin') or row (e.g. 'row public.user_roles user_id, role = 'admin'')"
                )
            }
            if let prev = r.settings["row"] {
                throw InputError(line.at, "role \(r.name) is already given by a row at line \(prev.line): keep one way")
            }
            let usage =
                "write 'claim app_metadata.KEY = VALUE' (set by the service) or 'claim KEY = VALUE' (a top-level claim, as a custom access-token hook adds it); KEY may be a path (app_metadata.org.role), VALUE JSON ([\"admin\"])"
            let words = line.words
            guard words.count >= 4, words[2] == "=" else { throw InputError(line.at, usage) }
            let path = words[1].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.contains(where: \.isEmpty), path != ["app_metadata"] else {
                throw InputError(line.at, usage + " (app_metadata.KEY, KEY, or a path of keys)")
            }
            if path[0] == "user_metadata" {
                throw InputError(
                    line.at,
                    "claim 'user_metadata…' is written by users themselves, so it cannot give a role: name where the service puts it (app_metadata.KEY)"
                )
            }
            // The value is the rest of the line after '=': JSON, or a word taken as a string.
            let text = line.text.drop(while: { $0 == " " || $0 == "\t" })
            let raw = text[text.index(after: text.firstIndex(of: "=")!)...].trimmingCharacters(in: .whitespaces)
            guard let value = Self.claimValue(raw) else {
                throw InputError(
                    line.at,
                    "role \(r.name): '\(raw)' is not a JSON value or one word: write e.g. admin, 3, true or [\"admin\"]"
                )
            }
            if path[0] != "app_metadata", Self.platformClaims.contains(path[0]) {
                throw InputError(
                    line.at,
                    "claim '\(path[0])' is set by the platform for every user: name the claim the role is given in (app_metadata.KEY, or the hook's own claim)"
                )
            }
            try line.once("claim", &r.settings, "role \(r.name)")
            r.claimPath = path
            r.value = value
        }

        /// `row public.user_roles user_id, role = 'admin'`: the holder has that row (seeded by the service).
        func roleRow(_ line: Line, _ r: inout RoleIntent) throws(InputError) {
            let usage =
                "write 'row schema.table user_column, column = value', e.g. 'row public.user_roles user_id, role = 'admin''"
            if let prev = r.settings["claim"] {
                throw InputError(
                    line.at, "role \(r.name) is already given by a claim at line \(prev.line): keep one way")
            }
            guard line.words.count >= 3, let t = nameParts(line.words[1]), t.count <= 2 else {
                throw InputError(line.at, usage)
            }
            let rest = line.text.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(3)
                .drop(while: { $0 == " " || $0 == "\t" })
            // The table as splitWords found it (a "quoted name" may hold spaces), then the values.
            let afterTable = rest.dropFirst(line.words[1].count)
            let parts = AccessFile.splitTopLevel(afterTable).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let user = nameParts(parts[0]), user.count == 1 else { throw InputError(line.at, usage) }
            var values: [(String, String)] = []
            for p in parts.dropFirst() {
                guard let (column, after) = leadingName(Substring(p)) else { throw InputError(line.at, usage) }
                let tail = after.drop(while: { $0 == " " })
                guard tail.first == "=" else { throw InputError(line.at, usage) }
                let expr = tail.dropFirst().trimmingCharacters(in: .whitespaces)
                guard !expr.isEmpty else { throw InputError(line.at, usage) }
                if let problem = expressionProblem(expr) {
                    throw InputError(line.at, "role \(r.name): the value of \(column) \(problem): fix the expression")
                }
                values.append((column, expr))
            }
            try line.once("row", &r.settings, "role \(r.name)")
            r.rowSchema = t.count == 2 ? t[0] : "public"
            r.rowName = t.last!
            r.rowUserColumn = user[0]
            r.rowValues = values
        }

        /// Names reports already give to rlskit's own actors.
        static let actorNames: Set<String> = [
            "anon", "service_role", "auth_admin", "authenticated", "outsider", "A", "B", "M",
        ]

        static let platformClaims: Set<String> = [
            "sub", "role", "aud", "exp", "iat", "email", "phone", "app_metadata", "user_metadata", "is_anonymous",
            "aal",
            "amr", "session_id", "iss",
        ]

        /// JSON stays JSON (`true`, `3`, `["admin"]`, `{"level": 2}`, `"x"`); a 'quoted' or plain
        /// word is a string; nil for anything else (two words, malformed JSON).
        static func claimValue(_ w: String) -> String? {
            if let first = w.first,
                "[{\"".contains(first) || w == "true" || w == "false" || w == "null" || Double(w) != nil
            {
                return (try? JSON(parsing: w))?.rendered(pretty: false)
            }
            var v = w
            if v.count >= 2, v.first == "'", v.last == "'" {
                v = String(v.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
            } else if v.contains(where: { $0 == " " || $0 == "\t" }) {
                return nil
            }
            return JSON.string(v).rendered(pretty: false)
        }

        /// `seed column = SQL expression`.
        func seed(_ line: Line) throws(InputError) -> (String, String) {
            let usage = "write 'seed column = SQL expression', e.g. seed image_path = '{owner}/a.png'"
            let rest = line.text.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(4).drop(while: {
                $0 == " " || $0 == "\t"
            })
            guard let (column, after) = leadingName(rest) else { throw InputError(line.at, usage) }
            let tail = after.drop(while: { $0 == " " || $0 == "\t" })
            guard tail.first == "=" else { throw InputError(line.at, usage) }
            let expr = tail.dropFirst().trimmingCharacters(in: .whitespaces)
            guard !expr.isEmpty else { throw InputError(line.at, usage) }
            if let problem = expressionProblem(expr) {
                throw InputError(line.at, "seed \(column): the SQL expression \(problem): fix the expression")
            }
            return (column, expr)
        }

        /// Every block says what it must; a file that declares nothing would test nothing.
        mutating func finish() throws(InputError) -> AccessFile {
            known.tables = Dictionary(file.tables.map { ($0.qualifiedName, $0) }) { a, _ in a }
            known.memberships = Dictionary(file.memberships.map { ($0.qualifiedName, $0) }) { a, _ in a }
            known.roles = Set(file.roles.map(\.name))
            known.memberRoles = Set(file.memberships.flatMap(\.roles))
            for t in file.tables { try check(t) }
            for m in file.memberships { try check(m) }
            for r in file.roles where r.claimPath.isEmpty && !r.byRow {
                throw InputError(
                    r.location,
                    "role \(r.name) has no 'claim' or 'row' line: add e.g. 'claim app_metadata.role = \(r.name)' or 'row public.user_roles user_id, role = '\(r.name)''"
                )
            }
            for b in file.buckets { try finishBucket(b) }
            for f in file.functions {
                try checkNames(f.callableBy, at: f.location, what: "function \(f.display)", key: "callable-by")
            }
            if file.tables.isEmpty && file.buckets.isEmpty && file.memberships.isEmpty {
                throw InputError(
                    SourceLocation(file: file.path, line: 1),
                    "this access file declares no table or bucket, so it would test nothing: add a 'table schema.name' or 'bucket name' block"
                )
            }
            return file
        }

        func check(_ t: TableIntent) throws(InputError) {
            let what = "table \(t.qualifiedName)"
            let values: [(String, Who?)] = [
                ("read", t.read), ("insert", t.insert), ("update", t.update), ("delete", t.delete),
            ]
            // Mistakes on a line first, in line order; then what the block lacks.
            let written = values.compactMap { key, w in
                w.map {
                    (key: t.settings[key] != nil ? key : "write", who: $0, at: t.settings[key] ?? t.settings["write"]!)
                }
            }.sorted { $0.at.line < $1.at.line }
            for v in written {
                try checkNames(v.who, at: v.at, what: what, key: v.key)
                if v.who.mentionsOwner && t.owner.isEmpty {
                    throw InputError(
                        v.at,
                        "\(what) has no 'owner' line, which '\(v.key) \(v.who)' needs: add 'owner <column holding the owner's user id>'"
                    )
                }
                if v.who.mentionsMembers && t.group.isEmpty {
                    throw InputError(
                        v.at,
                        "\(what) has no 'group' line, which '\(v.key) \(v.who)' needs: add 'group <column holding the row's group>'"
                    )
                }
            }
            if t.read == nil {
                throw InputError(t.location, "\(what) has no 'read' line: add 'read \(Who.usage)'")
            }
            if t.insert == nil || t.update == nil || t.delete == nil {
                throw InputError(
                    t.location,
                    "\(what) does not say who may write: add 'write owner|nobody|…' (or insert/update/delete lines)")
            }
            if t.move != nil, t.group.isEmpty {
                throw InputError(
                    t.settings["move"]!,
                    "\(what): 'move' is about rows moving between groups: add a 'group' line or remove it")
            }
            if let m = t.move { try checkNames(m, at: t.settings["move"]!, what: what, key: "move") }
            if !t.through.isEmpty {
                let at = t.settings["group"] ?? t.location
                var seen: Set<String> = [t.qualifiedName]
                var next = t.through
                while true {
                    guard let parent = known.tables[next], !parent.group.isEmpty
                    else {
                        throw InputError(
                            at,
                            "\(what): 'through \(next)' needs a 'table \(next)' block with a 'group' line in this file")
                    }
                    guard seen.insert(parent.qualifiedName).inserted else {
                        throw InputError(at, "\(what): 'group … through' goes round in a circle through \(next)")
                    }
                    if parent.through.isEmpty { break }
                    next = parent.through
                }
            }
            if !t.ownerThrough.isEmpty { try checkOwnerChain(t) }
            if !t.group.isEmpty && file.memberships.isEmpty {
                throw InputError(
                    t.settings["group"] ?? t.location,
                    "\(what) has a 'group' but no 'members' block says who belongs to a group: add 'members schema.table' with group and user lines"
                )
            }
        }

        /// `owner c through P`: P is declared with an owner line, and the chain ends at a user's id.
        func checkOwnerChain(_ t: TableIntent) throws(InputError) {
            let what = "table \(t.qualifiedName)"
            let at = t.settings["owner"] ?? t.location
            if let g = t.settings["group"] {
                throw InputError(
                    at,
                    "\(what): 'owner … through' and a 'group' line (line \(g.line)) together are not supported: keep the group, or make 'owner' name a column holding the user's id"
                )
            }
            var seen: Set<String> = [t.qualifiedName]
            var next = t.ownerThrough
            while true {
                guard let parent = known.tables[next], !parent.owner.isEmpty else {
                    throw InputError(
                        at,
                        "\(what): 'owner \(t.owner) through \(next)' needs a 'table \(next)' block with an 'owner' line in this file (the column holding its owner's user id)"
                    )
                }
                guard seen.insert(parent.qualifiedName).inserted else {
                    throw InputError(at, "\(what): 'owner … through' goes round in a circle through \(next)")
                }
                if parent.ownerThrough.isEmpty { break }
                next = parent.ownerThrough
            }
        }

        /// Roles named in a who are declared; member roles are listed in a members block.
        func checkNames(_ w: Who, at: SourceLocation, what: String, key: String) throws(InputError) {
            for r in w.roleNames where !known.roles.contains(r) {
                throw InputError(
                    at,
                    "unknown \(key) value '\(r)' for \(what): use \(Who.usage) (declare 'role \(r)' if it is a role)")
            }
            for r in w.memberRoles where !known.memberRoles.contains(r) {
                throw InputError(
                    at,
                    "\(what): no members block lists the role '\(r)': add it to a 'roles' line (the owner's role first), or fix the name"
                )
            }
        }

        func check(_ m: MembersIntent) throws(InputError) {
            let what = "members \(m.qualifiedName)"
            if m.byClaim {
                if !m.roleClaimPath.isEmpty && m.roles.isEmpty {
                    throw InputError(
                        m.settings["role"] ?? m.location,
                        "\(what) has a role claim but no 'roles' line: list its values, the group owner's first, e.g. 'roles admin member'"
                    )
                }
                if m.roleClaimPath.isEmpty, let at = m.settings["roles"] {
                    throw InputError(at, "\(what) lists roles but has no 'role' line: name the claim holding them")
                }
                return
            }
            if m.groupColumn.isEmpty {
                throw InputError(
                    m.location, "\(what) has no 'group' line: name the column holding the group, e.g. 'group team_id'")
            }
            if m.userColumn.isEmpty {
                throw InputError(m.location, "\(what) has no 'user' line: name the column holding the member's user id")
            }
            if !m.roleColumn.isEmpty && m.roles.isEmpty {
                throw InputError(
                    m.settings["role"] ?? m.location,
                    "\(what) has a role column but no 'roles' line: list its values, the group owner's first, e.g. 'roles owner member'"
                )
            }
            if m.roleColumn.isEmpty && !m.roles.isEmpty {
                throw InputError(
                    m.settings["roles"] ?? m.location,
                    "\(what) lists roles but has no 'role' line: name the column holding them")
            }
            let required: [(String, Who?)] =
                [("read", m.read), ("add", m.add), ("remove", m.remove), ("leave", m.leave)]
                + (m.roleColumn.isEmpty ? [] : [("change-role", m.changeRole)])
            for (key, w) in required where w == nil {
                throw InputError(
                    m.location,
                    "\(what) has no '\(key)' line: say who may \(Self.membersMeaning[key]!) (e.g. '\(key) \(key == "read" || key == "leave" ? "members" : "members with role \(m.roles.first ?? "owner")")')"
                )
            }
            if m.roleColumn.isEmpty, let at = m.settings["change-role"] {
                throw InputError(
                    at, "\(what) has no role column, so there is no role to change: remove 'change-role' or add 'role'")
            }
            for (key, w) in [
                ("read", m.read), ("add", m.add), ("remove", m.remove), ("leave", m.leave),
                ("change-role", m.changeRole),
            ] {
                guard let w else { continue }
                let at = m.settings[key] ?? m.location
                if w.mentionsOwner {
                    throw InputError(
                        at, "\(what): membership rows have no owner: use members, members with role R, or a role")
                }
                try checkNames(w, at: at, what: what, key: key)
                for r in w.memberRoles where !m.roles.contains(r) {
                    throw InputError(
                        at, "\(what): '\(r)' is not in this block's 'roles' line: fix the name or add it there")
                }
                if key == "leave", w != .nobody,
                    !w.principals.allSatisfy({ if case .members = $0 { true } else { false } })
                {
                    throw InputError(
                        at, "\(what): 'leave' is about members leaving: use 'leave members' or 'leave nobody'")
                }
            }
        }

        static let membersMeaning = [
            "read": "read membership rows", "add": "add others to a group", "remove": "remove others from a group",
            "leave": "leave a group (remove their own membership)", "change-role": "change others' roles",
        ]
    }
}
