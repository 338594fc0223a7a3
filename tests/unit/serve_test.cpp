// serve_test.cpp: the page's records and checks without a browser (host/app/serve): a
// history left open across 1,000 runs stays within its limits, events are read field by
// field (nothing else a run sends reaches the page), output lines and events keep their
// order, the Host header check, the data block of a page file (no "</script>" a run printed
// ends it), a run's output through a capture (events taken out, their text on the terminal).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/page.hpp"
#include "app/serve/address.hpp"
#include "app/serve/html.hpp"
#include "app/serve/page.hpp"
#include "app/serve/record.hpp"

namespace warplab::app::serve {
namespace {

using json = nlohmann::json;

TEST(ServeRuns, AThousandRunsStayWithinTheLimits) {
  Limits l;
  l.bytes = 2u << 20;  // the byte bound, not only the count, is what drops runs here
  Runs runs("x.lua", l);
  const std::string line(4000, 'x');
  const std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\">" + std::string(256 << 10, ' ') + "</svg>";
  std::size_t most = 0;
  for (int n = 1; n <= 1000; ++n) {
    runs.begin(n, "run " + std::to_string(n));
    for (int i = 0; i < 50; ++i) runs.text(0, line + "\n");
    runs.event({{"kind", "svg"}, {"name", "a.svg"}, {"svg", svg}});
    runs.event({{"kind", "check"}, {"ok", true}, {"what", "w"}});
    runs.end("ok", "done");
    most = std::max(most, runs.bytes());
  }
  EXPECT_LE(most, l.bytes + (1u << 20));  // the history, and the run being recorded
  const json state = json::parse(runs.state_json());
  ASSERT_LE(state["runs"].size(), 5u);  // 2 MiB holds about 4 runs of 456 KiB
  EXPECT_EQ(state["runs"].back()["run"], 1000);
  EXPECT_EQ(runs.run_json(1, 0), "");  // long gone
  EXPECT_EQ(runs.picture(1, 0), nullptr);
  EXPECT_NE(runs.picture(1000, 0), nullptr);
}

TEST(ServeRuns, OneRunPastItsLimitsSaysWhatItLeftOut) {
  Limits l;
  l.run_text = 1000;
  l.run_items = 50;
  Runs runs("x.lua", l);
  runs.begin(1, "");
  for (int i = 0; i < 100; ++i) runs.text(0, std::string(40, 'a') + "\n");
  const json r = json::parse(runs.run_json(1, 0));
  EXPECT_LE(r["items"].size(), 51u);
  bool cut = false;
  for (const json& it : r["items"]) cut = cut || it["kind"] == "cut";
  EXPECT_TRUE(cut);
}

TEST(ServeRuns, LinesAndEventsKeepTheirOrderAndATailWaits) {
  Runs runs("x.lua");
  runs.begin(1, "h");
  runs.text(0, "one\ntw");
  runs.event({{"kind", "check"}, {"ok", false}, {"what", "w"}, {"evidence", 3}});
  runs.text(0, "o\nthr");
  runs.text(1, "error line\n");
  json r = json::parse(runs.run_json(1, 0));
  ASSERT_EQ(r["items"].size(), 4u);
  EXPECT_EQ(r["items"][0]["text"], "one\n");
  EXPECT_EQ(r["items"][1]["kind"], "check");
  EXPECT_EQ(r["items"][1]["evidence"], "3");  // a number shown as its text
  EXPECT_EQ(r["items"][2]["text"], "two\n");
  EXPECT_EQ(r["items"][3]["stream"], "err");
  EXPECT_EQ(r["tail"]["out"], "thr");
  EXPECT_TRUE(r["outcome"].is_null());
  runs.end("failed", "exit 1");
  r = json::parse(runs.run_json(1, 3));  // from item 3 on: the rest, the tail now a line
  EXPECT_EQ(r["from"], 3);
  ASSERT_EQ(r["items"].size(), 2u);
  EXPECT_EQ(r["items"][1]["text"], "thr");
  EXPECT_EQ(r["outcome"], "failed");
}

TEST(ServeRuns, EventsAreReadFieldByField) {
  Runs runs("x.lua");
  runs.begin(1, "");
  runs.event(
      {{"kind", "svg"}, {"name", "p.svg"}, {"svg", "<svg/>"}, {"src", "javascript:alert(1)"}, {"id", 99}});
  runs.event({{"kind", "table"},
              {"title", {{"a", 1}}},
              {"columns", {"x", 2}},
              {"rows", {{"<b>1</b>", {{"o", 1}}, nullptr}, "not a row"}},
              {"numeric", {true, "yes"}},
              {"onclick", "x"}});
  runs.event({{"kind", "script"}, {"text", "<script>"}});
  runs.event({{"kind", "lines"}, {"lines", {{"columns", {"inst"}}, {"files", json::array()}}}});
  const json r = json::parse(runs.run_json(1, 0));
  ASSERT_EQ(r["items"].size(), 2u);
  const json& svg = r["items"][0];
  EXPECT_FALSE(svg.contains("src"));
  EXPECT_EQ(svg["id"], 0);
  EXPECT_EQ(*runs.picture(1, 0), "<svg/>");
  const json& t = r["items"][1];
  EXPECT_FALSE(t.contains("onclick"));
  EXPECT_TRUE(t["title"].is_null());
  EXPECT_EQ(t["columns"], json({"x", "2"}));
  EXPECT_EQ(t["rows"][0], json({"<b>1</b>", "{\"o\":1}", ""}));
  EXPECT_EQ(t["rows"][1], json::array());
  EXPECT_EQ(t["numeric"], json({true, false}));
  EXPECT_EQ(r["lines"]["columns"], json({"inst"}));
}

TEST(ServeRuns, NotUtf8IsReplacedNotRefused) {
  Runs runs("x.lua");
  runs.begin(1, "");
  runs.text(0, "bad \xff\xfe bytes\n");
  const json r = json::parse(runs.run_json(1, 0));
  EXPECT_NE(r["items"][0]["text"].get<std::string>().find("bytes"), std::string::npos);
}

TEST(ServeAddress, HostHeaders) {
  const auto lo = parse_address("127.0.0.1");
  ASSERT_TRUE(lo);
  EXPECT_TRUE(host_allowed("127.0.0.1:8000", *lo, 8000));
  EXPECT_TRUE(host_allowed("localhost:8000", *lo, 8000));
  EXPECT_TRUE(host_allowed("[::1]:8000", *lo, 8000));
  EXPECT_FALSE(host_allowed("127.0.0.1:8001", *lo, 8000));
  EXPECT_FALSE(host_allowed("127.0.0.1", *lo, 8000));
  EXPECT_FALSE(host_allowed("evil.example:8000", *lo, 8000));
  EXPECT_FALSE(host_allowed("127.0.0.1.evil.example:8000", *lo, 8000));
  EXPECT_FALSE(host_allowed("10.0.0.1:8000", *lo, 8000));
  EXPECT_FALSE(host_allowed("", *lo, 8000));
  EXPECT_FALSE(host_allowed("[::1:8000", *lo, 8000));
  EXPECT_FALSE(host_allowed("127.0.0.1:8000x", *lo, 8000));
  const auto any = parse_address("0.0.0.0");
  ASSERT_TRUE(any);
  EXPECT_FALSE(any->loopback);
  EXPECT_TRUE(host_allowed("192.168.1.5:8000", *any, 8000));
  EXPECT_FALSE(host_allowed("attacker.example:8000", *any, 8000));
  EXPECT_FALSE(host_allowed("localhost:8000", *any, 8000));
  EXPECT_FALSE(parse_address("example.com"));
  EXPECT_TRUE(parse_address("::1")->loopback);
}

TEST(ServeHtml, TheDataBlockCannotBeEndedByWhatARunPrinted) {
  Runs runs("x.lua");
  runs.begin(1, "");
  runs.text(0, "</script><script>alert(1)</script><!--\n");
  const std::string data = runs.all_json();
  const std::string html = page_html("abc", &data);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  std::size_t scripts = 0;
  for (std::size_t at = 0; (at = html.find("<script", at)) != std::string::npos; ++at) ++scripts;
  EXPECT_EQ(scripts, 2u);  // the data block and the page's own
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // nothing loaded from anywhere
  EXPECT_EQ(svg_data_uri("ab"), "data:image/svg+xml;base64,YWI=");
  EXPECT_EQ(svg_data_uri("abc"), "data:image/svg+xml;base64,YWJj");
  EXPECT_EQ(svg_data_uri("a"), "data:image/svg+xml;base64,YQ==");
}

// `run --html` replaces only a page warplab wrote, known by this line near its start.
TEST(ServeHtml, APageNamesItsWriterNearItsStart) {
  const std::string data = Runs("x.lua").all_json();
  for (const std::string& html : {page_html("abc", &data), page_html("abc", nullptr)}) {
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    const std::size_t at = html.find(kGenerator);
    ASSERT_NE(at, std::string::npos);
    EXPECT_LT(at + std::string(kGenerator).size(), 2048u);
  }
}

// A capture fed as a run would feed it: the terminal (our stdout, a pipe here) gets the text
// and each event's "text"; the page gets the lines and the events.
TEST(ServeCapture, EventsAreTakenOutOfTheOutput) {
  PageOptions o;
  Page page(o, "x.lua");
  page.begin_run(1, "");
  std::unique_ptr<PageCapture> cap = page.capture();
  ASSERT_TRUE(cap);
  ::setenv("WARPLAB_PAGE", "", 1);
  // The marker the child would get: read from the environment in_child() sets.
  const pid_t pid = ::fork();
  if (pid == 0) {
    cap->in_child();
    cap->redirect();
    const std::string m = std::getenv("WARPLAB_PAGE");
    const std::string ev =
        "\x1e" + m + "\x1f{\"kind\":\"check\",\"ok\":true,\"what\":\"w\",\"text\":\"  ok   w\"}\n";
    std::printf("before\n%s", ev.substr(0, 10).c_str());
    std::fflush(stdout);
    ::usleep(20000);
    std::printf("%safter \x1e not an event\n", ev.substr(10).c_str());
    std::fflush(stdout);
    ::_exit(0);
  }
  cap->forked();
  int term[2];
  ASSERT_EQ(::pipe(term), 0);
  const int saved = ::dup(STDOUT_FILENO);
  ::dup2(term[1], STDOUT_FILENO);
  int st = 0;
  ::waitpid(pid, &st, 0);
  cap->pump(true);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(term[1]);
  char buf[4096];
  const ssize_t n = ::read(term[0], buf, sizeof buf);
  ::close(term[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "before\n  ok   w\nafter \x1e not an event\n");
  page.end_run("ok", "");
  EXPECT_EQ(::unsetenv("WARPLAB_PAGE"), 0);
  // The page's record: the lines and the check, in order.
  char dir[] = "/tmp/serve_testXXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/p.html";
  EXPECT_EQ(page.write_html(file), "");
  std::ifstream in(file);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  ::unlink(file.c_str());
  ::rmdir(dir);
  const std::size_t before = html.find("\"text\":\"before\\n\""), check = html.find("\"kind\":\"check\"");
  EXPECT_NE(before, std::string::npos);
  EXPECT_NE(check, std::string::npos);
  EXPECT_LT(before, check);
  EXPECT_NE(html.find("not an event"), std::string::npos);
}

// A process the run left behind that writes without end: the run's end reads what it can
// for a bounded time, then goes on (watch would otherwise never come back to its loop).
TEST(ServeCapture, AWriterLeftBehindCannotHoldTheRunsEnd) {
  PageOptions o;
  Page page(o, "x.lua");
  page.begin_run(1, "");
  std::unique_ptr<PageCapture> cap = page.capture();
  ASSERT_TRUE(cap);
  const pid_t pid = ::fork();
  if (pid == 0) {
    cap->in_child();
    cap->redirect();
    for (;;) std::fputs("spam spam spam spam spam spam spam spam\n", stdout);
  }
  cap->forked();
  const int saved = ::dup(STDOUT_FILENO);
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, STDOUT_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  cap->pump(true);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(null);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_LT(s, 5.0);
}

}  // namespace
}  // namespace warplab::app::serve
