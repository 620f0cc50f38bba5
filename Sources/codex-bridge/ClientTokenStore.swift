import BridgeStore
import Foundation

/// `client-tokens.json` in the state directory: the device tokens `attach` received by pairing, by server id,
/// each bound to where it belongs (the addresses it was paired on, and the pinned certificate for TLS); 0600,
/// like every secret file.
struct ClientTokenStore {
    struct Entry: Codable, Equatable {
        var token: String
        var deviceId: String?
        var name: String?
        /// The addresses (`host:port`) the token was paired on: the only places a plaintext token is sent.
        var endpoints: [String]
        /// The TLS certificate pinned at pairing (64 hex digits); set when the bridge was paired over TLS, and
        /// then the token is sent only over TLS to a server presenting this certificate.
        var fingerprint: String?
    }

    let file: URL

    init(stateDirectory: URL) {
        file = stateDirectory.appendingPathComponent("client-tokens.json")
    }

    func load() -> [String: Entry] {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        return (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
    }

    func entry(serverId: String) -> Entry? { load()[serverId] }

    /// The entry used with `endpoint` (`host:port`), if any.
    func entry(endpoint: String) -> (String, Entry)? {
        load().first { $0.value.endpoints.contains(endpoint) }.map { ($0.key, $0.value) }
    }

    func save(serverId: String, _ entry: Entry) throws {
        var all = load()
        all[serverId] = entry
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try SecretFile.write(String(decoding: try encoder.encode(all), as: UTF8.self), to: file)
    }
}
