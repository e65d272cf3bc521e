/// SARIF 2.1.0 for code scanning, independent of what produced the results (audit now, the
/// test harness later).
@_spi(CLI) public enum SARIF {
    struct Rule: Sendable {
        var id: String
        var name: String
        var shortDescription: String
        var fullDescription: String
        var help: String
        /// "error", "warning" or "note".
        var level: String
        var tags: [String]
        /// The rule's documentation page, when it has one.
        var helpUri: String?
        init(
            id: String, name: String, shortDescription: String, fullDescription: String, help: String, level: String,
            tags: [String],
            helpUri: String? = nil
        ) {
            self.id = id
            self.name = name
            self.shortDescription = shortDescription
            self.fullDescription = fullDescription
            self.help = help
            self.level = level
            self.tags = tags
            self.helpUri = helpUri
        }
    }

    struct Result: Sendable {
        var ruleId: String
        var level: String
        var message: String
        /// Logical location: fully qualified name (`schema.name`), short name, kind.
        var fullyQualifiedName: String
        var name: String
        var kind: String
        var fingerprint: String
        var properties: [String: String]
    }

    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

    static func log(toolVersion: String, rules: [Rule], results: [Result]) -> JSON {
        let index = Dictionary(rules.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ruleJSON: [JSON] = rules.map { r in
            var pairs: [(String, JSON)] = [
                ("id", .string(r.id)),
                ("name", .string(r.name)),
                ("shortDescription", .object([("text", .string(r.shortDescription))])),
                ("fullDescription", .object([("text", .string(r.fullDescription))])),
                ("help", .object([("text", .string(r.help))])),
            ]
            if let uri = r.helpUri { pairs.append(("helpUri", .string(uri))) }
            pairs += [
                ("defaultConfiguration", .object([("level", .string(r.level))])),
                ("properties", .object([("tags", .array(r.tags.map(JSON.string)))])),
            ]
            return .object(pairs)
        }
        let resultJSON: [JSON] = results.map { r in
            var pairs: [(String, JSON)] = [("ruleId", .string(r.ruleId))]
            if let i = index[r.ruleId] { pairs.append(("ruleIndex", .int(i))) }
            pairs += [
                ("level", .string(r.level)),
                ("message", .object([("text", .string(r.message))])),
                (
                    "locations",
                    .array([
                        .object([
                            (
                                "logicalLocations",
                                .array([
                                    .object([
                                        ("name", .string(r.name)),
                                        ("fullyQualifiedName", .string(r.fullyQualifiedName)),
                                        ("kind", .string(r.kind)),
                                    ])
                                ])
                            )
                        ])
                    ])
                ),
                ("partialFingerprints", .object([("rlskit/v1", .string(r.fingerprint))])),
                ("properties", .sorted(r.properties)),
            ]
            return .object(pairs)
        }
        return .object([
            ("version", .string("2.1.0")),
            ("$schema", .string(schema)),
            (
                "runs",
                .array([
                    .object([
                        (
                            "tool",
                            .object([
                                (
                                    "driver",
                                    .object([
                                        ("name", .string("rlskit")),
                                        ("version", .string(toolVersion)),
                                        ("informationUri", .string("https://github.com/rlskit/rlskit")),
                                        ("rules", .array(ruleJSON)),
                                    ])
                                )
                            ])
                        ),
                        ("results", .array(resultJSON)),
                    ])
                ])
            ),
        ])
    }
}
