import Foundation

/// `HOST:PORT`, `[IPv6]:PORT`, `:PORT`, `PORT`, `HOST` (port 9099), or `tailscale[:PORT]` (the Tailscale
/// addresses). A URL (`http://…`) is not an address.
package struct ListenAddress: Equatable, Sendable {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        // `tailscale` alone: the Tailscale addresses on the default port (`tailscale:PORT` parses below).
        if text.lowercased() == "tailscale" {
            self.host = "tailscale"
            self.port = 9099
            return
        }
        guard !text.contains("/") else { return nil }
        var host = "0.0.0.0"
        var portText = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = String(rest.dropFirst())
        } else if !text.contains(":"), Int(text) == nil {
            host = text  // a bare host: the default port
            portText = "9099"
        } else if let colon = text.lastIndex(of: ":") {
            let hostPart = String(text[..<colon])
            if !hostPart.isEmpty { host = hostPart }
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    package var defaultValueDescription: String { "\(host):\(port)" }
}
