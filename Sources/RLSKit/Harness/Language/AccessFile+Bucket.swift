/// What a bucket's `read` says: public (files served by URL to everyone), or a `who`.
enum BucketRead: Sendable, Hashable {
    case `public`
    case who(Who)

    var who: Who? { if case .who(let w) = self { w } else { nil } }
}

/// How an object's owner is found.
enum BucketOwnership: String, Sendable {
    /// The first path segment is the owner's user id (`<uid>/avatar.png`).
    case folder
    /// storage.objects.owner_id, set by the Storage API to the uploader; names are free (often random, at the root).
    case ownerID = "owner-id"
    /// The first path segment is a group's key (`<team_id>/report.pdf`), membership through a `members` block.
    case group
}

struct BucketIntent: Sendable, Equatable {
    /// A `who` as written on one line, so that names can be checked once every block is known.
    struct Written: Sendable, Equatable {
        var key: String
        var who: Who
        var at: SourceLocation
    }

    var id: String
    var ownership: BucketOwnership?
    /// With `ownership group schema.table`: the members block the folders follow.
    var groupMembers: String?
    /// Who downloads (and, unless `list` says otherwise, lists); `public` also means a public bucket.
    var read: BucketRead?
    /// Who lists objects (SELECT on storage.objects); defaults to the owner (or the members) in a public bucket, else `read`.
    var list: Who?
    var upload: Who?
    var overwrite: Who?
    var move: Who?
    var delete: Who?
    /// Types an upload may have (`mime`); others must be refused.
    var mimeTypes: [String] = []
    /// Largest upload in bytes (`size`); larger ones must be refused.
    var maxSize: Int?
    var location: SourceLocation
    /// Where each setting was written, by its canonical name.
    var settings: [String: SourceLocation] = [:]
    var written: [Written] = []

    var model: BucketOwnership { ownership ?? .folder }
    var lister: Who {
        list ?? (read == .public ? (model == .group ? .members : .owner) : read?.who ?? .nobody)
    }
}

extension AccessFile.Parser {
    static let bucketOperations = ["upload", "overwrite", "move", "delete"]
    static let bucketAliases = ["upsert": "overwrite", "rename": "move"]

    func bucketSetting(_ line: Line, _ bucket: inout BucketIntent) throws(InputError) {
        let what = "bucket \(bucket.id)"
        let at = line.at
        let key = Self.bucketAliases[line.key] ?? line.key
        switch key {
        case "ownership":
            var members: String?
            if line.words.count >= 2, line.words[1] == "group" {
                guard line.words.count <= 3 else {
                    throw InputError(at, "write 'ownership group' or 'ownership group schema.members_table'")
                }
                if line.words.count == 3 {
                    let (schema, name) = try tableName(Line(words: ["group", line.words[2]], text: "", at: at))
                    members = SQL.qualified(schema, name)
                }
            } else {
                _ = try line.value(["folder", "owner-id", "group"])
            }
            let v = BucketOwnership(rawValue: line.words[1])
            try line.once("ownership", &bucket.settings, what)
            if v != .folder, bucket.settings["own-folder"] != nil { throw ownFolderConflict(at, v!) }
            bucket.ownership = v
            bucket.groupMembers = members
        case "read":
            if line.words.count == 2, line.words[1] == "public" {
                try line.once("read", &bucket.settings, what)
                bucket.read = .public
                break
            }
            let v = try bucketWho(line, key: key)
            try line.once("read", &bucket.settings, what)
            bucket.read = .who(v)
            bucket.written.append(.init(key: key, who: v, at: at))
        case "list":
            let v = try bucketWho(line, key: key)
            try line.once("list", &bucket.settings, what)
            bucket.list = v
            bucket.written.append(.init(key: key, who: v, at: at))
        case "write":
            let ownFolder = line.words.count == 2 && line.words[1] == "own-folder"
            let v = ownFolder ? Who.owner : try bucketWho(line, key: key)
            try line.once("write", &bucket.settings, what)
            if ownFolder {
                if let m = bucket.ownership, m != .folder { throw ownFolderConflict(at, m) }
                bucket.ownership = .folder
                bucket.settings["own-folder"] = at
            }
            bucket.written.append(.init(key: key, who: v, at: at))
            // Per-operation lines override 'write', whichever comes first.
            for op in Self.bucketOperations where bucket.settings[op] == nil { set(op, v, &bucket) }
        case "upload", "overwrite", "move", "delete":
            let v = try bucketWho(line, key: key)
            try line.once(key, &bucket.settings, what)
            set(key, v, &bucket)
            bucket.written.append(.init(key: key, who: v, at: at))
        case "mime":
            let types = Array(line.words.dropFirst())
            guard !types.isEmpty else {
                throw InputError(at, "'mime' needs the types uploads may have, e.g. 'mime image/png image/jpeg'")
            }
            for t in types where !BucketUploads.isMimeType(t) {
                throw InputError(at, "'\(t)' is not a MIME type: write type/subtype, e.g. image/png or image/*")
            }
            try line.once("mime", &bucket.settings, what)
            bucket.mimeTypes = types
        case "size":
            guard line.words.count == 2, let n = Int(line.words[1]), n > 0 else {
                throw InputError(at, "'size' takes the largest upload in bytes, e.g. 'size 1048576'")
            }
            try line.once("size", &bucket.settings, what)
            bucket.maxSize = n
        default:
            throw InputError(
                at,
                "unknown bucket setting '\(line.key)': use ownership, read, list, write, upload, overwrite, move, delete, mime or size"
            )
        }
    }

    /// A bucket operation's `who`; `public` and `own-folder` are only for `read` and `write`, alone.
    func bucketWho(_ line: Line, key: String) throws(InputError) -> Who {
        let words = Array(line.words.dropFirst())
        guard !words.isEmpty else {
            throw InputError(line.at, "'\(line.key)' takes one value (or several joined by 'or'): \(Who.usage)")
        }
        for w in ["public", "own-folder"] where words.contains(w) {
            let alone = (w == "public" && key == "read") || (w == "own-folder" && key == "write")
            throw InputError(
                line.at,
                alone
                    ? "'\(line.key) \(w)' stands alone: drop the other values"
                    : "unknown \(line.key) value '\(w)': use \(Who.usage)\(w == "public" ? " ('public' is for read)" : " ('own-folder' is for write)")"
            )
        }
        return try Who.parse(words, key: line.key, at: line.at)
    }

    func ownFolderConflict(_ at: SourceLocation, _ m: BucketOwnership) -> InputError {
        InputError(
            at,
            "'write own-folder' means folder ownership, but this bucket says 'ownership \(m.rawValue)': write 'write \(m == .group ? "members" : "owner")'"
        )
    }

    func set(_ op: String, _ v: Who?, _ b: inout BucketIntent) {
        switch op {
        case "upload": b.upload = v
        case "overwrite": b.overwrite = v
        case "move": b.move = v
        default: b.delete = v
        }
    }
}
