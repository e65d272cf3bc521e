// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "rlskit",
    products: [
        .library(name: "Postgres", targets: ["Postgres"]),
        .library(name: "RLSKit", targets: ["RLSKit"]),
        .executable(name: "rlskit", targets: ["rlskit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "Postgres", dependencies: ["CLibPQ"]),
        .target(name: "RLSKit", dependencies: ["Postgres"], plugins: ["EmbedSQL"]),
        .executableTarget(name: "embed-sql", path: "Sources/embed-sql"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["embed-sql"]),
        // stdio's error flag, which Swift 6 cannot reach safely (stdout is a C global).
        .target(name: "CStdio", path: "Sources/CStdio"),
        .executableTarget(name: "rlskit", dependencies: ["RLSKit", "Postgres", "CStdio"]),
        // Benchmarks' driver (bench/*.sh): not part of the product.
        .executableTarget(
            name: "rlskit-bench", dependencies: ["Postgres", "RLSKit"], path: "bench/Sources/rlskit-bench"),
        // Shared by the test targets only: one real server per test process.
        .target(name: "TestSupport", dependencies: ["Postgres", "RLSKit"], path: "Tests/TestSupport"),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(name: "RLSKitTests", dependencies: ["RLSKit", "Postgres", "TestSupport"]),
        .testTarget(name: "rlskitTests", dependencies: ["rlskit", "RLSKit", "Postgres", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
