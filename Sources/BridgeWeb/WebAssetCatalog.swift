// The embedded files by name. SwiftPM's `embedInCode` makes one `PackageResources` member per file of
// `Assets/` and no index, so the index is written here; `WebAssetCatalogTests` checks it lists every file.
enum WebAssetCatalog {
    static func load() -> [String: WebAsset] {
        let files: [(String, [UInt8])] = [
            ("index.html", PackageResources.index_html)
        ]
        return Dictionary(uniqueKeysWithValues: files.map { ($0.0, WebAsset(name: $0.0, body: $0.1)) })
    }
}
