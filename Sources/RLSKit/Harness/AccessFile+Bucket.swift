/// Who may do one bucket operation. `public` only for `read`: files served by URL to everyone.
enum BucketAccess: String, Sendable, CaseIterable {
    case owner, signedIn = "signed-in", anyone, nobody, `public`

    /// Wider grants allow everything narrower ones do: nobody < owner < signed-in < anyone.
    var rank: Int {
        switch self {
        case .nobody: 0
        case .owner: 1
        case .signedIn: 2
        case .anyone, .public: 3
        }
    }

    /// Whether a caller may do it to an object: `owns` when the object is the caller's, `user` when signed in.
    func allows(owns: Bool, user: Bool) -> Bool {
        switch self {
        case .nobody, .public: false
        case .owner: owns && user
        case .signedIn: user
        case .anyone: true
        }
    }

    static let operationValues = ["owner", "signed-in", "anyone", "nobody"]
}

/// How an object's owner is found.
enum BucketOwnership: String, Sendable {
    /// The first path segment is the owner's user id (`<uid>/avatar.png`).
    case folder
    /// storage.objects.owner_id, set by the Storage API to the uploader; names are free (often random, at the root).
    case ownerID = "owner-id"
}

struct BucketIntent: Sendable, Equatable {
    public var id: String
    public var ownership: BucketOwnership?
    /// Who downloads (and, unless `list` says otherwise, lists); `public` also means a public bucket.
    public var read: BucketAccess?
    /// Who lists objects (SELECT on storage.objects); defaults to `owner` in a public bucket, else `read`.
    public var list: BucketAccess?
    public var upload: BucketAccess?
    public var overwrite: BucketAccess?
    public var move: BucketAccess?
    public var delete: BucketAccess?
    /// Types an upload may have (`mime`); others must be refused.
    public var mimeTypes: [String] = []
    /// Largest upload in bytes (`size`); larger ones must be refused.
    public var maxSize: Int?
    public var location: SourceLocation
    /// Where each setting was written, by its canonical name.
    public var settings: [String: SourceLocation] = [:]

    var model: BucketOwnership { ownership ?? .folder }
    var lister: BucketAccess { list ?? (read == .public ? .owner : read ?? .nobody) }
}

extension AccessFile.Parser {
    static let bucketOperations = ["upload", "overwrite", "move", "delete"]
    static let bucketAliases = ["upsert": "overwrite", "rename": "move"]

    func bucketSetting(_ line: Line, _ bucket: inout BucketIntent) throws(InputError) {
        let what = "bucket \(bucket.id)", at = line.at
        let key = Self.bucketAliases[line.key] ?? line.key
        switch key {
        case "ownership":
            if line.words.count == 2, line.words[1] == "group" {
                throw InputError(
                    at, "'ownership group' needs group declarations, not supported yet: use folder or owner-id")
            }
            let v = BucketOwnership(rawValue: try line.value(["folder", "owner-id"]))
            try line.once("ownership", &bucket.settings, what)
            if v == .ownerID, bucket.settings["own-folder"] != nil { throw ownFolderConflict(at) }
            bucket.ownership = v
        case "read":
            let v = BucketAccess(rawValue: try line.value(["public"] + BucketAccess.operationValues))
            try line.once("read", &bucket.settings, what)
            bucket.read = v
        case "list":
            let v = BucketAccess(rawValue: try line.value(BucketAccess.operationValues))
            try line.once("list", &bucket.settings, what)
            bucket.list = v
        case "write":
            let raw = try line.value(["own-folder"] + BucketAccess.operationValues)
            try line.once("write", &bucket.settings, what)
            let v = raw == "own-folder" ? BucketAccess.owner : BucketAccess(rawValue: raw)
            if raw == "own-folder" {
                if bucket.ownership == .ownerID { throw ownFolderConflict(at) }
                bucket.ownership = .folder
                bucket.settings["own-folder"] = at
            }
            // Per-operation lines override 'write', whichever comes first.
            for op in Self.bucketOperations where bucket.settings[op] == nil { set(op, v, &bucket) }
        case "upload", "overwrite", "move", "delete":
            let v = BucketAccess(rawValue: try line.value(BucketAccess.operationValues))
            try line.once(key, &bucket.settings, what)
            set(key, v, &bucket)
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

    func ownFolderConflict(_ at: SourceLocation) -> InputError {
        InputError(
            at,
            "'write own-folder' means folder ownership, but this bucket says 'ownership owner-id': write 'write owner'")
    }

    func set(_ op: String, _ v: BucketAccess?, _ b: inout BucketIntent) {
        switch op {
        case "upload": b.upload = v
        case "overwrite": b.overwrite = v
        case "move": b.move = v
        default: b.delete = v
        }
    }

    /// What a bucket block must say, and declarations the Storage API could never honour.
    func finishBucket(_ b: BucketIntent) throws(InputError) {
        if b.read == nil {
            throw InputError(
                b.location, "bucket \(b.id) has no 'read' line: add 'read public|anyone|signed-in|owner|nobody'")
        }
        let ops: [(String, BucketAccess?)] = [
            ("upload", b.upload), ("overwrite", b.overwrite), ("move", b.move), ("delete", b.delete),
        ]
        if ops.allSatisfy({ $0.1 == nil }) {
            throw InputError(
                b.location,
                "bucket \(b.id) has no 'write' line: add 'write own-folder|owner|signed-in|anyone|nobody' (or upload, overwrite, move and delete lines)"
            )
        }
        for (op, v) in ops where v == nil {
            throw InputError(b.location, "bucket \(b.id) does not say who may \(op): add '\(op) …' or a 'write' line")
        }
        if b.list != nil, b.read != .public {
            throw InputError(
                b.settings["list"]!,
                "'list' is for public buckets: in a private bucket 'read' says who lists and downloads (both SELECT); drop 'list'"
            )
        }
        let where_ = { (op: String) in b.settings[op] ?? b.settings["write"] ?? b.location }
        // Overwrites are INSERT … ON CONFLICT DO UPDATE: the insert policy must pass too.
        let ov = b.overwrite!, up = b.upload!
        let neededUpload = b.model == .ownerID && ov == .signedIn ? 1 : ov.rank
        if up.rank < neededUpload {
            throw InputError(
                where_("overwrite"),
                "bucket \(b.id): overwrite \(ov.rawValue) but upload \(up.rawValue): the Storage API overwrites with an upsert, which the upload (insert) policy must allow too; widen upload or narrow overwrite"
            )
        }
        // Deletes, moves and overwrites return the row (RETURNING): whoever does them must see it.
        for (op, v) in ops.dropFirst() where v!.rank > b.lister.rank {
            throw InputError(
                where_(op),
                "bucket \(b.id): \(op) \(v!.rawValue) but only \(b.lister.rawValue) may list: the Storage API \(op)s with RETURNING, which needs the SELECT policy too; widen \(b.settings["list"] == nil ? "read" : "list") or narrow \(op)"
            )
        }
    }
}
