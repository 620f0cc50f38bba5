import Foundation
import NIOCore

/// The web app's files, by name: embedded in the binary, or read from a directory on every request (a
/// development aid: `CODEX_BRIDGE_WEB_DIR`). Scripts and styles are also served under the version's path
/// (``versionPrefix``), which only the embedded files let a browser keep for good (``isImmutable``).
public struct WebAssets: Sendable {
    private enum Source: Sendable {
        case embedded([String: WebAsset])
        case directory(URL)
    }

    private let source: Source
    private let version: WebAppVersion

    /// The files compiled into this binary.
    public static let embedded: WebAssets = {
        let files = WebAssetCatalog.load()
        let version = WebAppVersion(of: files)
        let preload = WebAppVersion.firstPaintModules { files[$0].map { String(buffer: $0.body) } }
        return WebAssets(source: .embedded(files.mapValues { version.fill($0, preload: preload) }), version: version)
    }()

    /// Files read from `directory` on each request (flat: names only, no subdirectories).
    public init(directory: URL) {
        self.source = .directory(directory)
        self.version = .development
    }

    private init(source: Source, version: WebAppVersion) {
        self.source = source
        self.version = version
    }

    /// The path (relative to the app's scope) the versioned scripts and styles are served under: `v/<12 hex>/`,
    /// or `v/dev/` for files read from a directory.
    public var versionPrefix: String { version.prefix }

    /// The version's name in ``versionPrefix``.
    public var versionName: String { version.name }

    /// Whether the files under ``versionPrefix`` never change (embedded: any change makes a new version).
    public var isImmutable: Bool {
        if case .embedded = source { return true }
        return false
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
            let asset = WebAsset(name: name, body: [UInt8](data))
            guard WebAppVersion.templates.contains(name) else { return asset }
            let preload = WebAppVersion.firstPaintModules { file in
                guard Self.isServable(file) else { return nil }
                let data = FileManager.default.contents(atPath: url.appendingPathComponent(file).path)
                return data.map { String(decoding: $0, as: UTF8.self) }
            }
            return version.fill(asset, preload: preload)
        }
    }

    /// The asset for a path under ``versionPrefix`` (`version` and `file` its two segments): nil for another
    /// version (a page of an older app asks for files this server no longer has) and for unversioned files.
    public func asset(version: String, file: String) -> WebAsset? {
        guard version == self.version.name, WebAppVersion.isVersioned(file) else { return nil }
        return asset(forPath: "/" + file)
    }

    /// A plain file name: no slash, no leading dot, only `[A-Za-z0-9._-]`.
    static func isServable(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 100
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_")
            }
    }
}
