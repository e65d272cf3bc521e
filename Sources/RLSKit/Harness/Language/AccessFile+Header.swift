extension AccessFile.Parser {
    /// `header name = value`: a header the callers send; `{uid}` is the signed-in user's id,
    /// `{group}` the key of the group the caller belongs to.
    func header(_ line: Line, _ earlier: [APIHeader]) throws(InputError) -> APIHeader {
        let at = line.at
        let rest = line.text.dropFirst("header".count)
        guard let eq = rest.firstIndex(of: "=") else {
            throw InputError(at, "write 'header name = value', e.g. 'header x-tenant-id = {uid}'")
        }
        let name = rest[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
        let value = rest[rest.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        let token = "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~"
        guard !name.isEmpty, name.allSatisfy({ token.contains($0) }) else {
            throw InputError(at, "'\(name)' is not a header name: use letters, digits and '-', e.g. 'x-tenant-id'")
        }
        guard !APIHeader.reserved.contains(name) else {
            throw InputError(at, "header \(name) is set by rlskit as the Data API client sends it: remove this line")
        }
        if let prev = earlier.first(where: { $0.name == name }) {
            throw InputError(at, "header \(name) is already given at line \(prev.location.line): keep one")
        }
        guard !value.isEmpty else {
            throw InputError(at, "header \(name) has no value: write 'header \(name) = value'")
        }
        var open = value.split(separator: "{", omittingEmptySubsequences: false).dropFirst().makeIterator()
        while let part = open.next() {
            guard part.hasPrefix("uid}") || part.hasPrefix("group}") else {
                throw InputError(
                    at,
                    "header \(name): unknown placeholder in '\(value)': use {uid} (the signed-in user's id) or {group} (the key of the caller's group)"
                )
            }
        }
        return APIHeader(name: name, value: value, location: at)
    }
}
