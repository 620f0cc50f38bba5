import BridgeOps
import BridgeStore
import Foundation

extension PortProbe {
    /// The one-line error for a port in use: who holds it when that is this state directory's server.
    package static func inUseMessage(host: String, port: Int, paths: StatePaths) -> String {
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var holder = "another program"
        if let record = ServerRecord.readRunning(paths: paths), record.port == port {
            holder = "codex-bridge pid \(record.pid), serving this state directory"
        }
        return "\(shown) is already in use (by \(holder)); stop it or choose --listen HOST:PORT"
    }
}
