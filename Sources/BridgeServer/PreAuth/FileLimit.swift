import Foundation
import Logging

/// The process's open-file limit. Every socket is a file: with Linux's usual soft limit of 1024, a thousand
/// idle connections would leave no descriptor for real clients (or for `/healthz`), so the server raises
/// the soft limit to the hard one at start.
enum FileLimit {
    static func raiseToHardLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let soft = limit.rlim_cur
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) != 0 { limit.rlim_cur = soft }
        }
        logger.info(
            "Open file limit",
            metadata: [
                "bridge.nofile.soft": "\(limit.rlim_cur)", "bridge.nofile.hard": "\(limit.rlim_max)", "bridge.nofile.was": "\(soft)",
            ])
    }
}
