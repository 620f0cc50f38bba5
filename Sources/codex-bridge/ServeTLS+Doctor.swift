import BridgeOps
import BridgeServe
import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing

extension ServeTLS {
    /// `doctor`'s `tls` check. With the workstation's CA: its keys are private, and the addresses offered now
    /// are inside its constraints (an address outside is a problem: browsers warn there). A running server that
    /// serves plaintext on an address other than loopback or Tailscale is a problem; with none running, what
    /// `serve` would do with config.toml is reported as info.
    static func doctorFinding(paths: StatePaths, running: ServerRecord?, logger: Logger) async -> DoctorFinding {
        let file = (try? ServeConfigFile.load(paths.configFile)) ?? ServeOptions.unset
        let settings = ServeSettings(file)
        let tls = running?.tls ?? settings.tls
        let workstationCA = running?.workstationCA ?? (settings.tlsCert == nil && !settings.tlsTailscale)
        if tls && !workstationCA {
            return DoctorFinding(
                check: "tls", severity: .ok,
                summary: "TLS (wss://) with a provided certificate, SHA-256 \(running?.fingerprint ?? "(not running)")")
        }
        if tls {
            let store = TLSStore(directory: paths.tlsDirectory)
            do {
                guard let authority = try store.loadAuthority() else {
                    return DoctorFinding(
                        check: "tls", severity: .ok,
                        summary: "TLS is on; serve makes this workstation's certificate authority on first start")
                }
                for key in store.keyFiles {
                    let mode = (try? FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int) ?? 0
                    if mode & 0o077 != 0 {
                        return DoctorFinding(
                            check: "tls", severity: .problem, summary: "\(key.path) is readable by others",
                            fix: "chmod 600 \(key.path)   (and codex-bridge tls ca rotate, since it may have leaked)")
                    }
                }
                var offered = running?.addresses ?? []
                if running == nil { offered = (try? await AddressDiscovery(logger: logger).candidates())?.map(\.host) ?? [] }
                let outside = uncovered(names: offered, authority: authority)
                if !outside.isEmpty {
                    return DoctorFinding(
                        check: "tls", severity: .problem,
                        summary:
                            "the certificate authority does not cover \(outside.joined(separator: ", ")) (browsers warn there; it covers \(authority.scope))",
                        fix:
                            "codex-bridge tls ca rotate   (then trust the new one on each phone), or reserve the old address in the router's DHCP"
                    )
                }
                if !authority.missingLimits.isEmpty {
                    return DoctorFinding(
                        check: "tls", severity: .problem,
                        summary:
                            "the certificate authority predates its limits: it lacks \(authority.missingLimits.joined(separator: " and ")), so its key could sign e-mail, client or code-signing certificates",
                        fix: "codex-bridge tls ca rotate   (then trust the new one on each phone and remove the old one)")
                }
                return DoctorFinding(
                    check: "tls", severity: .ok,
                    summary:
                        "TLS (https://, wss://) with this workstation's certificate authority, SHA-256 \(authority.fingerprint); it covers every offered address"
                )
            } catch {
                return DoctorFinding(check: "tls", severity: .problem, summary: "\(error)", fix: "codex-bridge tls ca rotate")
            }
        }
        let host = running?.host ?? file.listen?.host ?? "0.0.0.0"
        guard let warning = plaintextWarning(host: host) else {
            return DoctorFinding(check: "tls", severity: .ok, summary: "plaintext ws:// on \(host) (loopback or Tailscale only)")
        }
        if running != nil {
            return DoctorFinding(
                check: "tls", severity: .problem, summary: "the running server is " + warning.split(separator: ";")[0],
                fix: "restart it with: codex-bridge serve --tls   (or tls = true in \(paths.configFile.path))")
        }
        return DoctorFinding(
            check: "tls", severity: .info, summary: "serve would be " + warning.split(separator: ";")[0],
            fix: "codex-bridge serve --tls   (or tls = true in \(paths.configFile.path))")
    }
}
