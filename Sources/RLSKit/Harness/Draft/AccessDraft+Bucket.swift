/// A bucket's draft block: how objects belong to someone, then who may do each operation the
/// Storage API checks, every one a question.
extension AccessDraft {
    /// `id`: the bucket's id as `Text.word` let it through.
    static func bucketBlock(_ b: Bucket, _ id: String, members: [Membership], policies: [Policy], _ w: inout Writer) {
        w.lines.append("bucket \(id)" + (b.isPublic ? "  # public: anyone downloads its files by URL" : ""))
        var models = ["folder (first folder is the user's id)", "owner-id (the uploader; names are free)"]
        var who = ["anyone", "signed-in", "owner"]
        if !members.isEmpty {
            let named = members.count == 1 ? "" : " " + members.map(\.table.qualifiedName).joined(separator: "|")
            models.append("group\(named) (first folder is a group's key)")
            who.append("members")
            let roles = members.count == 1 ? (members[0].role?.labels ?? []).filter { Text.listWord($0) != nil } : []
            if members.contains(where: { $0.role != nil }) {
                who.append("members with role " + (roles.isEmpty ? "R" : roles.joined(separator: ", ")))
            }
        }
        let choices = (who + ["nobody"]).joined(separator: " | ")
        w.ask("ownership", "how objects belong: " + models.joined(separator: " | "))
        w.ask("read", "who may list and download: public | \(choices)")
        w.ask("upload", "who may upload new files: \(choices)")
        w.ask("overwrite", "who may replace a file (upsert), the same choices")
        w.ask("move", "who may move or rename a file, the same choices")
        w.ask("delete", "who may delete a file, the same choices")
        let literal = SQL.literal(b.id)
        w.quote(
            policies.filter { ($0.using ?? "").contains(literal) || ($0.check ?? "").contains(literal) },
            "on storage.objects naming \(literal)")
    }
}
