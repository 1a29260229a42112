//===- PassArguments.cpp - check hwagent-opt's pass arguments -------------===//

#include "PassArguments.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <string>

#include <unistd.h>

using namespace mlir;
using namespace mlir::hwagent;

/// What `print` writes to stdout: MLIR prints the registry's and a pass's
/// options only there (PassRegistryEntry::printHelpStr).
template <typename Print> static std::string captureStdout(Print print) {
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("hwagent-opt-help", "txt", fd, path))
    return "";
  llvm::outs().flush();
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  print();
  llvm::outs().flush();
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(fd);
  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(path))
    text = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(path);
  return text;
}

/// The closest of `names` to `word` when it is close enough to be a typo.
static llvm::StringRef closest(llvm::StringRef word,
                               llvm::ArrayRef<std::string> names) {
  llvm::StringRef best;
  unsigned bestDistance = ~0u;
  for (const std::string &name : names) {
    unsigned d = word.edit_distance(name, true, bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return bestDistance <= std::max<size_t>(2, word.size() / 4)
             ? best
             : llvm::StringRef();
}

/// A pass's or pipeline's options, from its help: "--key=<...>" lines, each
/// followed by its "=value" lines when it takes one of a set.
static std::map<std::string, std::vector<std::string>>
optionsOf(const PassRegistryEntry &entry) {
  std::string help = captureStdout([&] { entry.printHelpStr(0, 60); });
  std::map<std::string, std::vector<std::string>> options;
  std::string current;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(help).split(lines, '\n');
  for (llvm::StringRef line : lines.size() > 1
                                  ? llvm::ArrayRef(lines).drop_front()
                                  : llvm::ArrayRef<llvm::StringRef>()) {
    llvm::StringRef text = line.trim();
    if (text.consume_front("--")) {
      current =
          text.take_until([](char c) { return c == '=' || c == ' '; }).str();
      options[current];
    } else if (text.consume_front("=") && !current.empty()) {
      options[current].push_back(
          text.take_until([](char c) { return c == ' '; }).str());
    }
  }
  return options;
}

/// Splits "a=1 b={x y} c='d e'" into its key=value words.
static std::vector<llvm::StringRef> words(llvm::StringRef text) {
  std::vector<llvm::StringRef> out;
  size_t start = 0, depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && depth) {
      --depth;
    } else if (c == ' ' && !depth) {
      if (i > start)
        out.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  return out;
}

static bool checkOptions(llvm::StringRef pass, const PassRegistryEntry &entry,
                         llvm::StringRef text, llvm::raw_ostream &errs) {
  std::map<std::string, std::vector<std::string>> options = optionsOf(entry);
  std::vector<std::string> keys;
  for (const auto &option : options)
    keys.push_back(option.first);
  for (llvm::StringRef word : words(text)) {
    auto [key, value] = word.split('=');
    auto it = options.find(key.str());
    if (it == options.end()) {
      errs << "hwagent-opt: --" << pass << " has no option '" << key << "'";
      if (llvm::StringRef near = closest(key, keys); !near.empty())
        errs << "; did you mean '" << near << "'?";
      errs << "\n  its options: " << llvm::join(keys, ", ")
           << "\n  (hwagent-opt --help lists them with what they do)\n";
      return false;
    }
    const std::vector<std::string> &choices = it->second;
    value = value.trim("\"'");
    if (choices.empty() || llvm::is_contained(choices, value.str()))
      continue;
    errs << "hwagent-opt: --" << pass << ": '" << value
         << "' is not a value of " << key;
    if (llvm::StringRef near = closest(value, choices); !near.empty())
      errs << "; did you mean '" << near << "'?";
    errs << "\n  choices: " << llvm::join(choices, ", ") << "\n";
    return false;
  }
  return true;
}

bool mlir::hwagent::checkPassArguments(const std::vector<char *> &args,
                                       llvm::raw_ostream &errs) {
  std::vector<std::string> passNames;
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef arg(args[i]);
    if (arg == "--")
      break; // the rest are files
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    auto [name, options] = arg.split('=');
    const PassRegistryEntry *entry = PassPipelineInfo::lookup(name);
    if (!entry)
      entry = PassInfo::lookup(name);
    if (entry) {
      if (arg.contains('=') && !checkOptions(name, *entry, options, errs))
        return false;
      continue;
    }
    // A near miss of a pass name (LLVM would suggest its nearest flag).
    if (!name.starts_with("hwagent-") && !name.starts_with("partition"))
      continue;
    if (passNames.empty()) {
      // printRegisteredPasses lists the passes only; the pipelines hwagent
      // registers (tools/Driver/InitAll.cpp) are looked up by name
      // (test/Tools/hwagent-opt-help.test checks both).
      for (const char *pipeline :
           {"partition-backends", "hwagent-lower-to-llvm"})
        if (PassPipelineInfo::lookup(pipeline))
          passNames.push_back(pipeline);
      std::string all = captureStdout([] { printRegisteredPasses(); });
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(all).split(lines, '\n');
      for (llvm::StringRef line : lines)
        if (line.starts_with("  --"))
          passNames.push_back(
              line.drop_front(4)
                  .take_until([](char c) { return c == ' ' || c == '='; })
                  .str());
    }

    if (llvm::StringRef near = closest(name, passNames); !near.empty()) {
      errs << "hwagent-opt: no pass or pipeline '--" << name
           << "'; did you mean '--" << near
           << "'? (hwagent-opt --help lists hwagent's)\n";
      return false;
    }
  }
  return true;
}
