import Crypto
import Foundation
import NIOCore

/// The app's files as one version: a name for the whole set, the path its scripts and styles are served under
/// (`v/<version>/`, cached for good since that name changes whenever any file does), and the two files that name
/// them (`index.html` and `sw.js`), filled in.
///
/// `index.html` names its styles and its entry module as `{{assets}}app.css`, and `{{modules}}` becomes one
/// `modulepreload` link per module `app.js` imports statically, directly or not (``firstPaintModules(read:)``), so
/// the browser fetches them at once instead of one import level per round trip; a screen the app imports only
/// when it is opened (`import()`) is not preloaded, so a first load over a weak link carries only what its first
/// paint runs. `sw.js` gets the same `{{assets}}` and the version as `{{build}}`, so its cache follows the files.
struct WebAppVersion: Sendable, Hashable {
    /// Twelve hex digits of a digest over every file's name and entity tag; `dev` for files read from a directory.
    let name: String

    /// The path prefix of the versioned files, relative to the app's scope (`v/<name>/`).
    var prefix: String { "v/\(name)/" }

    /// The files that name other files and are filled in before they are served.
    static let templates: Set<String> = ["index.html", "sw.js"]

    /// The version of a set of files (their unfilled bytes).
    init(of assets: [String: WebAsset]) {
        var hasher = SHA256()
        for name in assets.keys.sorted() {
            hasher.update(data: Array(name.utf8) + [0] + Array(assets[name]!.etag.utf8) + [0])
        }
        name = hasher.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// The version of files that may change under a running server: never cached for good.
    static let development = WebAppVersion(name: "dev")

    private init(name: String) { self.name = name }

    /// Whether a file is served under ``prefix``: the modules and styles (not the worker, whose URL is its scope's).
    static func isVersioned(_ name: String) -> Bool {
        guard name != "sw.js" else { return false }
        return name.hasSuffix(".js") || name.hasSuffix(".css")
    }

    /// The modules `app.js` imports statically (`import … from './x.js'`, `import './x.js'`), directly or through
    /// another, sorted, `app.js` itself left out. `read` gives a file's text, nil when there is no such file.
    static func firstPaintModules(read: (String) -> String?) -> [String] {
        var found: Set<String> = []
        var pending = ["app.js"]
        while let name = pending.popLast() {
            guard let text = read(name) else { continue }
            for module in StaticImports.modules(in: text) where found.insert(module).inserted {
                pending.append(module)
            }
        }
        found.remove("app.js")
        return found.sorted()
    }

    /// `asset` filled in for this version when it is a template; as it is otherwise.
    /// - Parameter preload: the modules to preload (``firstPaintModules(read:)``).
    func fill(_ asset: WebAsset, preload: [String]) -> WebAsset {
        guard Self.templates.contains(asset.name) else { return asset }
        let modules = preload.map { #"<link rel="modulepreload" href="\#(prefix)\#($0)">"# }.joined(separator: "\n")
        let text = String(decoding: asset.body.readableBytesView, as: UTF8.self)
            .replacingOccurrences(of: "{{modules}}", with: modules)
            .replacingOccurrences(of: "{{assets}}", with: prefix)
            .replacingOccurrences(of: "{{build}}", with: name)
        return WebAsset(name: asset.name, body: Array(text.utf8))
    }
}
