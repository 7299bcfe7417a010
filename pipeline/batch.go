package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/formats"
)

// Job is one model of a batch and the path its conversion is written to.
type Job struct {
	In, Out string
}

// paramsSuffix matches MXNet's checkpoint weights names: prefix-0000.params.
var paramsSuffix = regexp.MustCompile(`-\d+\.params$`)

// FindModels lists the files in dir (and below it, when recursive) that a
// registered importer recognizes by contents or extension. An MXNet
// prefix-NNNN.params beside its prefix-symbol.json belongs to that symbol
// file and is not listed on its own. Hidden files and folders are skipped.
func FindModels(dir string, recursive bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, err := formats.FindImporter(path, ""); err != nil {
			return nil
		}
		if loc := paramsSuffix.FindStringIndex(path); loc != nil {
			if _, err := os.Stat(path[:loc[0]] + "-symbol.json"); err == nil {
				return nil
			}
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// ModelStem is a model's file name without its format's extension
// ("resnet-symbol.json" -> "resnet", "a.onnx" -> "a").
func ModelStem(name string) string {
	if loc := paramsSuffix.FindStringIndex(name); loc != nil && loc[0] > 0 {
		return name[:loc[0]]
	}
	const sym = "-symbol.json"
	if strings.HasSuffix(strings.ToLower(name), sym) && len(name) > len(sym) {
		return name[:len(name)-len(sym)]
	}
	if e := filepath.Ext(name); e != "" && len(e) < len(name) {
		return name[:len(name)-len(e)]
	}
	return name
}

// PlanOutputs names each model's output in outDir, keeping the subfolder
// structure below dir. When two models would get the same output (a.onnx and
// a.pt), the later one keeps its full name (a.pt.onnx).
func PlanOutputs(dir, outDir string, models []string, ext string) []Job {
	jobs := make([]Job, len(models))
	taken := map[string]bool{}
	for i, m := range models {
		rel, err := filepath.Rel(dir, m)
		if err != nil {
			rel = filepath.Base(m)
		}
		sub, name := filepath.Split(rel)
		out := filepath.Join(outDir, sub, ModelStem(name)+ext)
		if taken[out] {
			out = filepath.Join(outDir, sub, name+ext)
		}
		taken[out] = true
		jobs[i] = Job{In: m, Out: out}
	}
	return jobs
}

// FileSet holds files by identity, to find whether a path names one of
// them whatever the spelling or links.
type FileSet struct {
	paths []string
	infos []os.FileInfo
}

// StatFiles is the set of paths that exist.
func StatFiles(paths []string) FileSet {
	var s FileSet
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			s.paths = append(s.paths, p)
			s.infos = append(s.infos, st)
		}
	}
	return s
}

// Find returns the member that one of paths names, or "".
func (s FileSet) Find(paths []string) string {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		for i, info := range s.infos {
			if os.SameFile(st, info) {
				return s.paths[i]
			}
		}
	}
	return ""
}
