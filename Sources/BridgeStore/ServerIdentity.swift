import Foundation

/// This bridge installation's stable identity: a random id kept in `server-id` (0600) in the state
/// directory, and a human name (the host name unless configured). Clients use the id to recognise a bridge
/// whose addresses changed.
public struct ServerIdentity: Sendable, Hashable {
    /// 16 random bytes, base64url, never starting with `-`; stable across restarts.
    public let id: String
    /// A human name.
    public let name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// Reads the id from `paths.serverIdFile`, creating it on first use (the state directory is prepared
    /// 0700 first). `name` overrides the host name.
    public static func loadOrCreate(paths: StatePaths, name: String? = nil) throws -> ServerIdentity {
        try paths.prepare()
        let id: String
        if let existing = try SecretFile.read(paths.serverIdFile), !existing.isEmpty {
            id = existing
        } else {
            id = newId()
            try SecretFile.write(id + "\n", to: paths.serverIdFile)
        }
        let chosen = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        return ServerIdentity(id: id, name: (chosen?.isEmpty == false ? chosen : nil) ?? hostName())
    }

    /// A new id: 16 random bytes in base64url, drawn again while it starts with `-`, since a person types it
    /// as an argument (`codex-bridge machines remove ID`) where a leading `-` reads as an option.
    static func newId() -> String {
        while true {
            let id = SharedSecret.generate(byteCount: 16)
            if !id.hasPrefix("-") { return id }
        }
    }

    /// The machine's host name (`gethostname`), or "codex-bridge" when it has none.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "codex-bridge" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "codex-bridge" : name
    }
}
