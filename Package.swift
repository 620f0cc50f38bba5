// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "codex-bridge",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "codex-bridge", targets: ["codex-bridge"]),
        .library(name: "BridgeProtocol", targets: ["BridgeProtocol"]),
        .library(name: "BridgeClient", targets: ["BridgeClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2", traits: []),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Wire messages. Foundation only: an iOS app imports this module.
        .target(name: "BridgeProtocol", swiftSettings: swiftSettings),

        // Files on disk: state/config paths, the shared secret, the SQLite store (devices, codes, journal).
        .target(
            name: "BridgeStore",
            dependencies: [
                "BridgeProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                "CSQLiteSetup",
            ],
            swiftSettings: swiftSettings
        ),
        // SQLite's process-wide options, set before its first use (BridgeDatabase).
        .target(name: "CSQLiteSetup", linkerSettings: [.linkedLibrary("sqlite3")]),

        // Files inside a workspace opened once, relative to a directory descriptor, never through a link out of it.
        .systemLibrary(name: "CLinuxShims"),
        .target(name: "ConfinedFiles", dependencies: ["CLinuxShims"], swiftSettings: swiftSettings),

        // Short helper programs (git, …): exact environment, bounded output and time, process-group teardown.
        .target(
            name: "ChildProcess",
            dependencies: [.product(name: "Subprocess", package: "swift-subprocess")],
            swiftSettings: swiftSettings
        ),

        // git the one safe way for a thread's work tree: status, commit, branches, push, pull requests, worktrees, diffs,
        // the commit-message prompt; refusals as GitError. Knows nothing of the hub.
        .target(
            name: "BridgeGit",
            dependencies: ["BridgeProtocol", "ChildProcess", "ConfinedFiles"],
            swiftSettings: swiftSettings
        ),

        // The `codex app-server` child and its JSON-RPC. Knows nothing of WebSockets.
        .target(
            name: "CodexControl",
            dependencies: [
                "CLinuxShims",
                "BridgeProtocol",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // A shared `codex app-server --listen unix://…` speaks WebSocket over its socket.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // Notifications: Web Push (RFC 8030/8291/8292: VAPID key, aes128gcm, ES256 JWT), ntfy and webhooks,
        // delivery over AsyncHTTPClient. Knows nothing of the hub or WebSockets.
        .target(
            name: "BridgePush",
            dependencies: [
                "BridgeStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Previews of a thread's dev servers on the bridge's second origin: finding them through /proc, the tickets and
        // cookie sessions, the header rules. Foundation only: the hub's two preview requests call it.
        .target(name: "BridgePreview", dependencies: ["BridgeProtocol"], swiftSettings: swiftSettings),

        // The preview origin itself: the listener and reverse proxy (HTTP and WebSocket) as a Service, over Hummingbird/NIO
        // and AsyncHTTPClient.
        .target(
            name: "BridgePreviewProxy",
            dependencies: [
                "BridgePreview",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // The live channel: binary frames for a session's live-only streams (voice audio), never journaled, with
        // back-pressure by watermarks. Knows nothing of sockets: the connection hands it frames.
        .target(
            name: "BridgeLive",
            dependencies: ["BridgeProtocol", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),

        // The thread hub: sessions, fan-out, replay, the journal's use, the policy gate, requests to Codex
        // through `CodexPort`, push decisions, uploads. Knows nothing of sockets or HTTP.
        .target(
            name: "BridgeHub",
            dependencies: [
                "BridgeProtocol",
                "BridgeLive",
                "BridgeStore",
                "CodexControl",
                "BridgePush",
                "BridgePreview",
                "BridgeGit",
                "ChildProcess",
                "ConfinedFiles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                // ByteBuffer: the live channel's bytes (voice's audio), as BridgeLive takes and gives them.
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // The WebSocket server: upgrade + auth, one event-loop handler per connection, the HTTP routes.
        .target(
            name: "BridgeServer",
            dependencies: [
                "BridgeHub",
                "BridgeLive",
                "BridgeProtocol",
                "BridgeStore",
                "CodexControl",
                "BridgeWeb",
                "BridgePush",
                "ConfinedFiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        // The web app (plain ES modules and CSS in Assets/, embedded in the binary) and how it is served.
        .target(
            name: "BridgeWeb",
            dependencies: [
                "BridgeProtocol",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.embedInCode("Assets")],
            swiftSettings: swiftSettings
        ),

        // libqrencode, for the terminal pairing QR.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),

        // Pairing: addresses (LAN, Tailscale), the pairing URL, the terminal QR renderer.
        .target(
            name: "Pairing",
            dependencies: [
                "BridgeProtocol",
                "BridgeStore",
                "CQRencode",
                "ChildProcess",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // libavahi-client, for mDNS advertising and browsing.
        .systemLibrary(
            name: "CAvahiClient",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),

        // Discovery: the mDNS publisher (a Service) and browser.
        .target(
            name: "Discovery",
            dependencies: [
                "CAvahiClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // TLS: the workstation's name-constrained CA and its leaf (swift-certificates), the iOS profile, pin checks, the
        // files, the server context.
        .target(
            name: "BridgeTLS",
            dependencies: [
                "BridgeStore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // The client library (an app or `attach` embeds it): connect, pair, pin, resume, reconnect, requests.
        .target(
            name: "BridgeClient",
            dependencies: [
                "BridgeProtocol",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Operations: the systemd unit, doctor checks, status, log handlers, the loopback HTTP probe (TLS-pinned), the
        // port probe, the command runner.
        .target(
            name: "BridgeOps",
            dependencies: [
                "ChildProcess",
                "BridgeTLS",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // The fleet: the home bridge's links to the machines linked to it, and the request layer that routes a fleet
        // session's requests to them.
        .target(
            name: "BridgeFleet",
            dependencies: [
                "BridgeHub", "BridgeClient", "BridgeStore", "BridgeProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // `serve` as a library: its settings (one schema: flags, config.toml, defaults), the parts it is made of
        // (pairing, TLS, notifications, the shared app-server, the terminal's QR and questions) and `buildBridge`,
        // which builds it in named steps (state, TLS, hub, server, services). Nothing depends on it but the executable
        // and its tests.
        .target(
            name: "BridgeServe",
            dependencies: [
                "BridgeProtocol",
                "BridgeHub",
                "ConfinedFiles",
                "BridgeFleet",
                "BridgePreview",
                "BridgePreviewProxy",
                "BridgePush",
                "BridgeServer",
                "BridgeStore",
                "Pairing",
                "Discovery",
                "CodexControl",
                "BridgeOps",
                "BridgeTLS",
                "BridgeWeb",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        // The executable: thin ArgumentParser commands; `serve` parses its settings, bootstraps logging and metrics,
        // and runs what BridgeServe builds.
        .executableTarget(
            name: "codex-bridge",
            dependencies: [
                "BridgeServe",
                "BridgeProtocol",
                "BridgeHub",
                "BridgeFleet",
                "BridgePush",
                "BridgeServer",
                "BridgeStore",
                "Pairing",
                "Discovery",
                "CodexControl",
                "BridgeOps",
                "BridgeClient",
                "BridgeTLS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        // The load tool behind Scripts/bench (BENCHMARKS.md); also a fast fake `codex app-server`.
        .executableTarget(
            name: "codex-bridge-bench",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/codex-bridge-bench",
            swiftSettings: swiftSettings
        ),

        // The bridge's own server in echo mode, for Scripts/conformance (Autobahn).
        .executableTarget(
            name: "codex-bridge-echo",
            dependencies: [
                "BridgeServer", "BridgeProtocol",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/codex-bridge-echo",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "BridgeProtocolTests", dependencies: ["BridgeProtocol"], swiftSettings: swiftSettings),
        .testTarget(name: "BridgeLiveTests", dependencies: ["BridgeLive"], swiftSettings: swiftSettings),
        .testTarget(
            name: "BridgeFleetTests",
            dependencies: [
                "BridgeFleet", "BridgeHub", "BridgeProtocol", "BridgeClient", "BridgeStore", "CodexControl", "ConfinedFiles",
                "HostileBridge", "Eventually",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "ConfinedFilesTests", dependencies: ["ConfinedFiles"], swiftSettings: swiftSettings),
        .testTarget(name: "BridgePreviewTests", dependencies: ["BridgePreview"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CodexBridgeCommandTests",
            dependencies: [
                "codex-bridge", "BridgeServe", "BridgeClient", "BridgeProtocol", "BridgeServer", "BridgeStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeServeTests",
            dependencies: [
                "BridgeServe", "BridgeClient", "BridgeProtocol", "BridgeServer", "BridgeStore", "Pairing", "Eventually",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeHubTests",
            dependencies: [
                // No BridgeServer and no NIO: sessions write to a recording sink (RecordingSink), not the outbox.
                "BridgeHub", "BridgeGit", "BridgeProtocol", "BridgeStore", "CodexControl", "ConfinedFiles", "Eventually",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeWebTests", dependencies: ["BridgeWeb", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "BridgeStoreTests",
            dependencies: ["BridgeStore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgePushTests",
            dependencies: ["BridgePush", "BridgeStore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CodexControlTests", dependencies: ["CodexControl", "Eventually"], swiftSettings: swiftSettings),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "BridgeStore"], swiftSettings: swiftSettings),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "Eventually"], swiftSettings: swiftSettings),
        .testTarget(name: "BridgeOpsTests", dependencies: ["BridgeOps"], swiftSettings: swiftSettings),
        // What the tests wait with instead of a guessed time: a condition polled with backoff, a gate, a manual clock.
        .target(name: "Eventually", path: "Tests/Eventually", swiftSettings: swiftSettings),
        // A WebSocket server on 127.0.0.1 that plays a hostile linked bridge, for the client side's tests.
        .target(
            name: "HostileBridge",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Tests/HostileBridge",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeClientTests",
            dependencies: [
                "BridgeClient", "BridgeProtocol", "HostileBridge", "Eventually", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeTLSTests",
            dependencies: [
                "BridgeTLS", "BridgeStore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeServerTests",
            dependencies: [
                "BridgeServer", "BridgeHub", "BridgeLive", "BridgeProtocol", "BridgeStore", "BridgePush", "BridgeWeb", "CodexControl",
                "ConfinedFiles", "Eventually",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
