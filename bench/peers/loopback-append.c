/*
 * The log-append-ceiling benchmark's native peer: the least a server must do to take log batches
 * over TCP, on this machine. A client thread sends length-prefixed frames (FRAME_BATCHES batches of
 * BATCH_BYTES each) over loopback with `inflight` frames unanswered at most; the server (a thread
 * of its own, or the process listening on `port`) reads each frame into one reused buffer with
 * blocking reads, computes the CRC-32C of every batch (SSE4.2, when `crc` is 1), write()s the frame
 * to a file in `dir` (page cache, no fsync) and answers 4 bytes.
 *
 *   loopback-append <dir> <total-bytes> <inflight> <crc 0|1> [port]
 *
 * With a port the server is not started: the frames go to the server listening there (which must
 * answer each frame with 4 bytes). Prints one JSON line: MB/s and the CPU of both threads.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nmmintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH_BYTES (128 * 1024)
#define FRAME_BATCHES 4
#define FRAME_BYTES (BATCH_BYTES * FRAME_BATCHES)

static long total_bytes;
static int use_crc;
static const char *dir;
static double server_cpu_s;

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint32_t crc32c(const uint8_t *p, size_t n) {
  uint64_t c = 0xffffffffu;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    memcpy(&word, p + i, 8);
    c = _mm_crc32_u64(c, word);
  }
  for (; i < n; i++) c = _mm_crc32_u8((uint32_t)c, p[i]);
  return ~(uint32_t)c;
}

static void read_fully(int fd, uint8_t *buf, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, buf, n);
    if (r <= 0) {
      perror("read");
      exit(1);
    }
    buf += r;
    n -= (size_t)r;
  }
}

static void write_fully(int fd, const uint8_t *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w <= 0) {
      perror("write");
      exit(1);
    }
    buf += w;
    n -= (size_t)w;
  }
}

static void *serve(void *arg) {
  int listener = *(int *)arg;
  int conn = accept(listener, NULL, NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s/loopback-append.log", dir);
  int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (conn < 0 || file < 0) {
    perror("serve");
    exit(1);
  }
  uint8_t *frame = malloc(FRAME_BYTES);
  volatile uint32_t checksums = 0;
  uint32_t answer = 0;
  double cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  for (long done = 0; done < total_bytes; done += FRAME_BYTES) {
    uint32_t length;
    read_fully(conn, (uint8_t *)&length, 4);
    length = ntohl(length);
    if (length != FRAME_BYTES) exit(2);
    read_fully(conn, frame, length);
    if (use_crc)
      for (size_t b = 0; b < FRAME_BATCHES; b++) checksums ^= crc32c(frame + b * BATCH_BYTES, BATCH_BYTES);
    write_fully(file, frame, length);
    write_fully(conn, (uint8_t *)&answer, 4);
  }
  server_cpu_s = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  close(file);
  unlink(path);
  close(conn);
  free(frame);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: loopback-append <dir> <total-bytes> <inflight> <crc 0|1> [port]\n");
    return 64;
  }
  dir = argv[1];
  total_bytes = atol(argv[2]);
  int inflight = atoi(argv[3]);
  use_crc = atoi(argv[4]);
  int external = argc > 5;
  uint8_t *request = malloc(FRAME_BYTES + 4);
  for (size_t i = 4; i < FRAME_BYTES + 4; i++) request[i] = (uint8_t)(i * 2654435761u >> 13);
  uint32_t prefix = htonl(FRAME_BYTES);
  memcpy(request, &prefix, 4);

  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  pthread_t server;
  int listener = -1;
  if (external) {
    address.sin_port = htons((uint16_t)atoi(argv[5]));
  } else {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, length) < 0 || listen(listener, 1) < 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) < 0) {
      perror("listen");
      return 1;
    }
    pthread_create(&server, NULL, serve, &listener);
  }
  int conn = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(conn, (struct sockaddr *)&address, sizeof address) < 0) {
    perror("connect");
    return 1;
  }
  int one = 1;
  setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  long frames = total_bytes / FRAME_BYTES, sent = 0, answered = 0;
  double t0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  while (answered < frames) {
    while (sent < frames && sent - answered < inflight) {
      write_fully(conn, request, FRAME_BYTES + 4);
      sent++;
    }
    uint32_t answer;
    read_fully(conn, (uint8_t *)&answer, 4);
    answered++;
  }
  double elapsed = seconds(CLOCK_MONOTONIC) - t0;
  double client_cpu_s = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  close(conn);
  if (!external) pthread_join(server, NULL);
  printf("{\"mbps\":%.1f,\"seconds\":%.4f,\"serverCpuPct\":%.1f,\"clientCpuPct\":%.1f}\n",
         (double)frames * FRAME_BYTES / elapsed / 1e6, elapsed, external ? -1.0 : server_cpu_s / elapsed * 100,
         client_cpu_s / elapsed * 100);
  return 0;
}
