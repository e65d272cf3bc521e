extension AccessFile {
    /// Reads an access file line by line: a block line (`table`, `bucket`, `expose`) at the
    /// margin, its settings indented below it; `finish` checks what each block must say.
    struct Parser {
        enum Block { case none, table(Int), bucket(Int) }
        var file: AccessFile
        var block = Block.none

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
            switch block {
            case .none:
                throw InputError(at, "indented '\(line.key)' outside a block: put it under a 'table' or 'bucket' line")
            case .table(let t): try tableSetting(line, &file.tables[t])
            case .bucket(let b): try bucketSetting(line, &file.buckets[b])
            }
        }

        mutating func blockLine(_ line: Line) throws(InputError) {
            let words = line.words, at = line.at
            switch line.key {
            case "expose":
                guard words.count > 1 else {
                    throw InputError(at, "'expose' needs schema names, e.g. 'expose public api'")
                }
                for w in words.dropFirst() {
                    for part in w.split(separator: ",").map(String.init) where !part.isEmpty {
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
            case "table":
                guard words.count == 2 else {
                    throw InputError(
                        at,
                        "write 'table schema.name' (one table per block; \"double quotes\" around names with spaces or symbols)"
                    )
                }
                guard let parts = nameParts(words[1]), parts.count <= 2 else {
                    throw InputError(
                        at,
                        "'\(words[1])' is not a table name: write schema.name, with \"double quotes\" around names that need them"
                    )
                }
                let t = TableIntent(schema: parts.count == 2 ? parts[0] : "public", name: parts.last!, location: at)
                if let prev = file.tables.first(where: { $0.qualifiedName == t.qualifiedName }) {
                    throw InputError(
                        at,
                        "table \(t.qualifiedName) is declared twice (first at line \(prev.location.line)): merge the blocks"
                    )
                }
                file.tables.append(t)
                block = .table(file.tables.count - 1)
            case "bucket":
                guard words.count == 2 else { throw InputError(at, "write 'bucket name' (one bucket per block)") }
                if let prev = file.buckets.first(where: { $0.id == words[1] }) {
                    throw InputError(
                        at,
                        "bucket \(words[1]) is declared twice (first at line \(prev.location.line)): merge the blocks")
                }
                file.buckets.append(BucketIntent(id: words[1], location: at))
                block = .bucket(file.buckets.count - 1)
            default:
                throw InputError(
                    at,
                    "unknown line '\(line.key)': start a block with 'table', 'bucket', 'expose' or 'header' (settings are indented)"
                )
            }
        }

        func tableSetting(_ line: Line, _ table: inout TableIntent) throws(InputError) {
            let what = "table \(table.qualifiedName)", key = line.key, at = line.at
            switch key {
            case "owner":
                guard line.words.count == 2, let col = nameParts(line.words[1]), col.count == 1 else {
                    throw InputError(at, "'owner' takes one column name, e.g. 'owner user_id'")
                }
                try line.once("owner", &table.settings, what)
                table.owner = col[0]
            case "read":
                let v = ReadAccess(rawValue: try line.value(["anyone", "signed-in", "owner", "nobody"]))
                try line.once("read", &table.settings, what)
                table.read = v
            case "write":
                let w = WriteAccess(rawValue: try line.value(["owner", "nobody"]))
                try line.once("write", &table.settings, what)
                // insert/update/delete lines override 'write', whichever comes first.
                if table.settings["insert"] == nil { table.insert = w }
                if table.settings["update"] == nil { table.update = w }
                if table.settings["delete"] == nil { table.delete = w }
            case "insert", "update", "delete":
                let w = WriteAccess(rawValue: try line.value(["owner", "nobody"]))
                try line.once(key, &table.settings, what)
                switch key {
                case "insert": table.insert = w
                case "update": table.update = w
                default: table.delete = w
                }
            case "seed":
                let (column, expr) = try seed(line)
                try line.once("seed \(column)", &table.settings, what)
                table.seeds.append((column, expr))
            default:
                throw InputError(
                    at, "unknown table setting '\(key)': use owner, read, write, insert, update, delete or seed")
            }
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

        func bucketSetting(_ line: Line, _ bucket: inout BucketIntent) throws(InputError) {
            let what = "bucket \(bucket.id)"
            switch line.key {
            case "read":
                let v = ReadAccess(rawValue: try line.value(["public", "anyone", "signed-in", "owner", "nobody"]))
                try line.once("read", &bucket.settings, what)
                bucket.read = v
            case "write":
                let v = WriteAccess(rawValue: try line.value(["own-folder", "nobody"]))
                try line.once("write", &bucket.settings, what)
                bucket.write = v
            default: throw InputError(line.at, "unknown bucket setting '\(line.key)': use read or write")
            }
        }

        /// Every block says what it must; a file that declares nothing would test nothing.
        func finish() throws(InputError) -> AccessFile {
            for t in file.tables {
                if t.owner.isEmpty {
                    throw InputError(
                        t.location,
                        "table \(t.qualifiedName) has no 'owner' line: name the column holding the owner's user id")
                }
                if t.read == nil {
                    throw InputError(
                        t.location,
                        "table \(t.qualifiedName) has no 'read' line: add 'read anyone|signed-in|owner|nobody'")
                }
                if t.insert == nil || t.update == nil || t.delete == nil {
                    throw InputError(
                        t.location,
                        "table \(t.qualifiedName) does not say who may write: add 'write owner|nobody' (or insert/update/delete lines)"
                    )
                }
            }
            for b in file.buckets {
                if b.read == nil {
                    throw InputError(
                        b.location, "bucket \(b.id) has no 'read' line: add 'read public|anyone|signed-in|owner|nobody'"
                    )
                }
                if b.write == nil {
                    throw InputError(b.location, "bucket \(b.id) has no 'write' line: add 'write own-folder|nobody'")
                }
            }
            if file.tables.isEmpty && file.buckets.isEmpty {
                throw InputError(
                    SourceLocation(file: file.path, line: 1),
                    "this access file declares no table or bucket, so it would test nothing: add a 'table schema.name' or 'bucket name' block"
                )
            }
            return file
        }
    }
}
