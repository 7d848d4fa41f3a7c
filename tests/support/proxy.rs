//! A TCP proxy in front of the emulator that can break connections, to test
//! what a scan does when its stream is cut.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the proxy misbehaves.
#[derive(Default)]
pub struct Faults {
    /// Cut this many connections, each after `cut_after` bytes from the server.
    pub cuts: AtomicUsize,
    pub cut_after: AtomicUsize,
    /// Refuse (close at once) every connection after the first cut.
    pub refuse_after_cut: AtomicBool,
    cut_happened: AtomicBool,
}

/// Starts the proxy; returns its `host:port`.
pub async fn start(upstream: String, faults: Arc<Faults>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
    let host = listener.local_addr().expect("proxy address").to_string();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let faults = Arc::clone(&faults);
            let upstream = upstream.clone();
            tokio::spawn(async move {
                if faults.refuse_after_cut.load(Ordering::SeqCst)
                    && faults.cut_happened.load(Ordering::SeqCst)
                {
                    return; // dropping the socket closes it
                }
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let cut = faults
                    .cuts
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
                    .then(|| faults.cut_after.load(Ordering::SeqCst));
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                let up = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut cr, &mut sw).await;
                });
                let mut buf = vec![0u8; 16 * 1024];
                let mut sent = 0usize;
                loop {
                    let n = match sr.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if let Some(limit) = cut {
                        if sent + n > limit {
                            let _ = cw.write_all(&buf[..limit.saturating_sub(sent)]).await;
                            faults.cut_happened.store(true, Ordering::SeqCst);
                            break;
                        }
                    }
                    if cw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    sent += n;
                }
                up.abort();
            });
        }
    });
    host
}
