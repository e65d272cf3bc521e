/// SARIF 2.1.0 for code scanning, independent of what produced the results (audit now, the
/// test harness later).
@_spi(CLI) public enum SARIF {
    public struct Rule: Sendable {
        public var id: String
        public var name: String
        public var shortDescription: String
        public var fullDescription: String
        public var help: String
        /// "error", "warning" or "note".
        public var level: String
        public var tags: [String]
        /// The rule's documentation page, when it has one.
        public var helpUri: String?
        public init(
            id: String, name: String, shortDescription: String, fullDescription: String, help: String, level: String,
            tags: [String],
            helpUri: String? = nil
        ) {
            self.id = id; self.name = name; self.shortDescription = shortDescription
            self.fullDescription = fullDescription; self.help = help; self.level = level; self.tags = tags
            self.helpUri = helpUri
        }
    }

    public struct Result: Sendable {
        public var ruleId: String
        public var level: String
        public var message: String
        /// Logical location: fully qualified name (`schema.name`), short name, kind.
        public var fullyQualifiedName: String
        public var name: String
        public var kind: String
        public var fingerprint: String
        public var properties: [String: String]
        public init(
            ruleId: String, level: String, message: String, fullyQualifiedName: String, name: String, kind: String,
            fingerprint: String, properties: [String: String]
        ) {
            self.ruleId = ruleId; self.level = level; self.message = message
            self.fullyQualifiedName = fullyQualifiedName; self.name = name; self.kind = kind
            self.fingerprint = fingerprint; self.properties = properties
        }
    }

    public static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

    public static func log(toolVersion: String, rules: [Rule], results: [Result]) -> JSON {
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
