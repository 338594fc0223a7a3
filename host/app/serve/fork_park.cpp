// serve/fork_park.cpp: see fork_park.hpp. The parks of this process in one list, held
// locked from before a fork until after it (so no park comes or goes meanwhile).
#include "app/serve/fork_park.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace warplab::app::serve {
namespace {

std::mutex parks_mutex;
std::vector<ForkPark*> parks;

}  // namespace

ForkPark::ForkPark(std::function<void()> wake) : wake_(std::move(wake)), owner_(::getpid()) {}

ForkPark::~ForkPark() { stop(); }

void ForkPark::stop() {
  std::lock_guard lock(parks_mutex);
  parks.erase(std::remove(parks.begin(), parks.end(), this), parks.end());
}

void ForkPark::start(std::thread::id thread) {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); });
  std::lock_guard lock(parks_mutex);
  thread_ = thread;
  parks.push_back(this);
}

void ForkPark::hold() {
  std::unique_lock lock(mutex_);
  if (!asked_) return;
  parked_ = true;
  cv_.notify_all();
  cv_.wait(lock, [this] { return !asked_; });
  parked_ = false;
}

void ForkPark::before_fork() {
  parks_mutex.lock();  // until after_fork_*
  for (ForkPark* p : parks) {
    if (p->owner_ != ::getpid() || p->thread_ == std::this_thread::get_id()) continue;
    std::unique_lock lock(p->mutex_);
    p->asked_ = true;
    p->wake_();
    // (a second at most: a thread busy that long is not worth a hung fork)
    p->cv_.wait_for(lock, std::chrono::seconds(1), [p] { return p->parked_; });
  }
}

void ForkPark::after_fork_in_parent() {
  for (ForkPark* p : parks) {
    if (p->owner_ != ::getpid()) continue;
    {
      std::lock_guard lock(p->mutex_);
      p->asked_ = false;
    }
    p->cv_.notify_all();
  }
  parks_mutex.unlock();
}

void ForkPark::after_fork_in_child() {
  parks_mutex.unlock();  // the threads are not here: the parks are the parent's
}

}  // namespace warplab::app::serve
