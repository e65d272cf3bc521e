/// `function public.get_team(uuid) callable-by members`: who may call a SECURITY DEFINER
/// function and have it return or change the rows it was given (see FunctionProbe).
struct FunctionIntent: Sendable, Equatable {
    var schema: String
    var name: String
    /// Argument types as the catalog prints them (`uuid`, `integer`); nil: every overload.
    var argTypes: [String]?
    var callableBy: Who
    var location: SourceLocation

    /// `schema.name(types)` as the probe names functions.
    var display: String {
        AuditNames.function(schema, name + (argTypes.map { "(" + $0.joined(separator: ", ") + ")" } ?? ""))
    }

    func matches(schema s: String, name n: String, argTypes types: [String]) -> Bool {
        s == schema && n == name && (argTypes == nil || argTypes == types)
    }
}

extension AccessFile.Parser {
    static let typeAliases = [
        "int": "integer", "int4": "integer", "int8": "bigint", "int2": "smallint", "bool": "boolean",
        "varchar": "character varying",
    ]
    static let functionUsage =
        "write 'function schema.name(argument types) callable-by WHO', e.g. 'function public.get_team(uuid) callable-by members'"

    func function(_ line: Line) throws(InputError) -> FunctionIntent {
        let at = line.at
        let text = line.text.dropFirst("function".count)
        guard let key = text.range(of: " callable-by") else { throw InputError(at, Self.functionUsage) }
        var signature = text[..<key.lowerBound].trimmingCharacters(in: .whitespaces)
        var types: [String]?
        if let open = signature.firstIndex(of: "(") {
            guard signature.hasSuffix(")") else { throw InputError(at, Self.functionUsage) }
            let inner = signature[signature.index(after: open)..<signature.index(before: signature.endIndex)]
            types = AccessFile.splitTopLevel(inner).map {
                let t = $0.trimmingCharacters(in: .whitespaces).lowercased()
                return Self.typeAliases[t] ?? t
            }
            signature = String(signature[..<open])
        }
        guard let parts = AccessFile.nameParts(signature), parts.count == 2 else {
            throw InputError(at, "'\(signature)' is not a function name: write schema.name, e.g. public.get_team")
        }
        let words = AccessFile.splitWords(String(text[key.upperBound...]))
        let who = try Who.parse(words, key: "callable-by", at: at)
        return FunctionIntent(schema: parts[0], name: parts[1], argTypes: types, callableBy: who, location: at)
    }
}
