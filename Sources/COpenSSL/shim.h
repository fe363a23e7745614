// OpenSSL (Debian libssl-dev) for DouyinChat's wss:// client on Linux. The functions OpenSSL
// defines as macros (Swift cannot call a macro with arguments) get inline wrappers here.
#ifndef DOUYIN_COPENSSL_SHIM_H
#define DOUYIN_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/// SNI: the host name the client asks for (SSL_set_tlsext_host_name is a macro).
static inline int douyin_ssl_set_sni(SSL *ssl, const char *host) {
    return (int)SSL_set_tlsext_host_name(ssl, host);
}

/// The lowest protocol version the context accepts (a macro over SSL_CTX_ctrl).
static inline int douyin_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// Partial writes and a write buffer that may move between retries (SSL_set_mode is a macro).
static inline void douyin_ssl_set_nonblocking_modes(SSL *ssl) {
    SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// Adds every certificate of a PEM text to the context's trust store; returns how many were
/// added, or -1 when the text holds none or one does not parse.
static inline int douyin_ssl_ctx_add_pem(SSL_CTX *ctx, const void *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) return -1;
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    int added = 0;
    X509 *cert;
    while ((cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, cert) != 1) { X509_free(cert); BIO_free(bio); return -1; }
        X509_free(cert);
        added++;
    }
    // The loop ends with "no start line" at the end of the text: that error is expected.
    ERR_clear_error();
    BIO_free(bio);
    return added > 0 ? added : -1;
}

#endif
