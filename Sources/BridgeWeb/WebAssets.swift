import Foundation

/// The web app's files, by name: embedded in the binary, or read from a directory on every request (a
/// development aid: `CODEX_BRIDGE_WEB_DIR`).
public struct WebAssets: Sendable {
    private enum Source: Sendable {
        case embedded([String: WebAsset])
        case directory(URL)
    }

    private let source: Source

    /// The files compiled into this binary.
    public static let embedded = WebAssets(source: .embedded(WebAssetCatalog.load()))

    /// Files read from `directory` on each request (flat: names only, no subdirectories).
    public init(directory: URL) {
        self.source = .directory(directory)
    }

    private init(source: Source) {
        self.source = source
    }

    /// The embedded files, or `CODEX_BRIDGE_WEB_DIR`'s when that variable names a directory.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> WebAssets {
        if let path = environment["CODEX_BRIDGE_WEB_DIR"], !path.isEmpty {
            return WebAssets(directory: URL(fileURLWithPath: path, isDirectory: true))
        }
        return .embedded
    }

    /// Every file name served.
    public var names: [String] {
        switch source {
        case .embedded(let assets):
            return assets.keys.sorted()
        case .directory(let url):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter(Self.isServable).sorted()
        }
    }

    /// The asset for a request path (`/` is `index.html`); nil for anything else, including any path with
    /// more than one segment, a dot file or a name with characters outside `[A-Za-z0-9._-]`.
    public func asset(forPath path: String) -> WebAsset? {
        let name = path == "/" || path.isEmpty ? "index.html" : String(path.drop { $0 == "/" })
        guard Self.isServable(name) else { return nil }
        switch source {
        case .embedded(let assets):
            return assets[name]
        case .directory(let url):
            guard let data = FileManager.default.contents(atPath: url.appendingPathComponent(name).path) else { return nil }
            return WebAsset(name: name, body: [UInt8](data))
        }
    }

    /// A plain file name: no slash, no leading dot, only `[A-Za-z0-9._-]`.
    static func isServable(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 100
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_")
            }
    }
}
