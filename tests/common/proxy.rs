//! A TCP proxy in front of the emulator that can break connections, to test
//! what a scan does when its stream is cut, and that counts the gRPC calls
//! going through it (one HTTP/2 HEADERS frame from the client opens each).

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
    /// gRPC calls the clients started (HEADERS frames sent to the server).
    pub calls: AtomicUsize,
}

/// Counts the HEADERS frames of a client's HTTP/2 byte stream: after the
/// 24-byte connection preface, frames of a 9-byte header (24-bit length,
/// type, flags, stream id) and their payload. A gRPC client sends one
/// HEADERS frame per call (its end of stream rides on a DATA frame).
struct FrameCounter {
    preface_left: usize,
    header: Vec<u8>,
    skip: usize,
}

impl FrameCounter {
    fn new() -> Self {
        FrameCounter {
            preface_left: 24,
            header: Vec::with_capacity(9),
            skip: 0,
        }
    }

    /// Feeds bytes; returns how many HEADERS frames started in them.
    fn feed(&mut self, mut bytes: &[u8]) -> usize {
        let mut headers = 0;
        while !bytes.is_empty() {
            if self.preface_left > 0 {
                let n = self.preface_left.min(bytes.len());
                self.preface_left -= n;
                bytes = &bytes[n..];
            } else if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
            } else {
                let n = (9 - self.header.len()).min(bytes.len());
                self.header.extend_from_slice(&bytes[..n]);
                bytes = &bytes[n..];
                if self.header.len() == 9 {
                    let h = &self.header;
                    self.skip =
                        usize::from(h[0]) << 16 | usize::from(h[1]) << 8 | usize::from(h[2]);
                    headers += usize::from(h[3] == 0x1);
                    self.header.clear();
                }
            }
        }
        headers
    }
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
                let counting = Arc::clone(&faults);
                let up = tokio::spawn(async move {
                    let mut frames = FrameCounter::new();
                    let mut buf = vec![0u8; 16 * 1024];
                    loop {
                        let n = match cr.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        counting
                            .calls
                            .fetch_add(frames.feed(&buf[..n]), Ordering::SeqCst);
                        if sw.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
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
