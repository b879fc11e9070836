// A small C++ program whose stacks hold templates, operator() and lambdas, for recording
// perf script output that stackcollapse-perf.pl and benchdeck's fold.py both fold.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {
volatile unsigned long sink;

template <typename T>
struct Accumulator {
    T total{};
    void operator()(const T& v) {
        for (int i = 0; i < 200; ++i) total += v * static_cast<T>(i);
        sink = static_cast<unsigned long>(total);
    }
};
}  // namespace

template <typename T, int N>
__attribute__((noinline)) T spin(const std::vector<T>& xs) {
    Accumulator<T> acc;
    for (int r = 0; r < N; ++r)
        for (const T& x : xs) acc(x);
    return acc.total;
}

struct Shape {
    virtual ~Shape() = default;
    virtual double area(int n) const = 0;
};
struct Square : Shape {
    double area(int n) const override {
        double a = 0;
        for (int i = 0; i < n; ++i) a += i * 0.5;
        return a;
    }
};

__attribute__((noinline)) double run_lambda(int n) {
    std::map<std::string, int> counts;
    auto work = [&counts](int k) -> double {
        double a = 0;
        for (int i = 0; i < k; ++i) a += static_cast<double>(i) / (k + 1);
        counts["k"] += 1;
        return a;
    };
    std::function<double(int)> f = work;
    double s = 0;
    for (int i = 0; i < n; ++i) s += f(20000);
    return s;
}

__attribute__((noinline)) long share_many(int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        std::shared_ptr<std::vector<long>> v = std::make_shared<std::vector<long>>(16, i);
        std::shared_ptr<std::vector<long>> w = v;
        s += (*w)[3];
    }
    return s;
}

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
    std::vector<long> longs(2000, 3);
    std::vector<double> doubles(2000, 1.5);
    std::unique_ptr<Shape> sq = std::make_unique<Square>();
    double total = 0;
    for (int r = 0; r < rounds; ++r) {
        total += static_cast<double>(spin<long, 20>(longs));
        total += spin<double, 20>(doubles);
        total += run_lambda(200);
        total += sq->area(400000);
        total += static_cast<double>(share_many(20000));
    }
    std::printf("%f\n", total);
    return 0;
}
