import Foundation

/// Owner tables with nothing sensitive are read by anyone in the inferred intent: profiles,
/// posts and listings are public by design as often as not. Their author says otherwise by name:
/// when every permissive SELECT policy an API caller meets is named for the row's owner ("Users
/// can view their own notes", "Enable read access for users based on user_id") and none reads
/// `true` or is named for everyone, a stranger reading another user's row is a hole.
extension AccessDraft {
    /// The first such policy's name, or nil.
    static func privateByName(_ t: Table) -> String? {
        let api: Set<String> = ["public", "anon", "authenticated"]
        let reads = t.policies.filter { p in
            p.permissive && (p.command == "r" || p.command == "*") && p.roles.contains(where: api.contains)
        }
        guard !reads.isEmpty else { return nil }
        for p in reads {
            let using = (p.using ?? "").lowercased().filter { !$0.isWhitespace && $0 != "(" && $0 != ")" }
            if using == "true" { return nil }
            let words = Set(p.name.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
            guard !words.isDisjoint(with: ownWords) || p.name.lowercased().contains("based on"),
                words.isDisjoint(with: everyoneWords)
            else { return nil }
        }
        return reads[0].name
    }

    /// Not "private": "view access to non-private chats" says the opposite.
    static let ownWords: Set<String> = [
        "own", "owns", "owned", "owner", "owners", "their", "themselves", "self", "my", "mine", "personal",
        "individual",
    ]
    static let everyoneWords: Set<String> = [
        "public", "anyone", "everyone", "everybody", "all", "anon", "anonymous", "world", "shared",
    ]
}
