// SPDX-License-Identifier: GPL-2.0
/*
 * Reader devices: /dev/evtrace/metadata (the CTF metadata, read-only) and
 * /dev/evtrace/<channel>/cpuN, one reader at a time, which takes whole
 * sub-buffers with GET_NEXT_SUBBUF, reads or splices them, and releases
 * them with PUT_NEXT_SUBBUF.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/fs.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/pipe_fs_i.h>
#include <linux/splice.h>
#include "evtrace_rings.h"
#include "evtrace_flush.h"
#include "evtrace_snapshot.h"
#include "evtrace_dev.h"
#include "compat.h"

static dev_t evt_devt;
static struct cdev evt_cdev;
static struct class *evt_class;
static struct device *evt_meta_dev;
static unsigned int evt_nr_minors;

static unsigned int evt_ring_minor(unsigned int channel, int cpu)
{
	return 1 + channel * nr_cpu_ids + cpu;
}

static char *evt_devnode(EVT_DEVNODE_DEV *dev, umode_t *mode)
{
	if (mode)
		*mode = MINOR(dev->devt) == 0 ? 0444 : 0600;
	return NULL;
}

static bool evt_is_meta(struct file *file)
{
	return iminor(file_inode(file)) == 0;
}

static int evt_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	struct evt_cpu_ring *cr;

	if (minor == 0) {
		if (file->f_mode & FMODE_WRITE)
			return -EPERM;
		/* The version current at open: START may render a new one. */
		file->private_data = evt_meta_get();
		return 0;
	}
	minor--;
	cr = evt_get_ring(minor / nr_cpu_ids, minor % nr_cpu_ids);
	if (!cr)
		return -ENODEV;
	if (atomic_cmpxchg(&cr->reader_open, 0, 1) != 0)
		return -EBUSY;
	file->private_data = cr;
	return 0;
}

/*
 * The file position is the offset in the held sub-buffer: GET sets it to 0,
 * read(), splice() and sendfile() advance it by what they delivered (for
 * sendfile, by what reached the file), and seeking moves within the packet
 * so that it can be read again.
 */
static loff_t evt_llseek(struct file *file, loff_t off, int whence)
{
	struct evt_cpu_ring *cr = file->private_data;
	loff_t ret;

	if (evt_is_meta(file))
		return default_llseek(file, off, whence);
	if (whence != SEEK_SET)
		return -EINVAL;
	mutex_lock(&cr->reader_lock);
	if (!cr->holding) {
		ret = -ENODATA;
	} else if (off < 0 || off > cr->ring.subbuf_size) {
		ret = -EINVAL;
	} else {
		file->f_pos = off;
		ret = off;
	}
	mutex_unlock(&cr->reader_lock);
	return ret;
}

static void evt_put_held(struct evt_cpu_ring *cr)
{
	if (cr->holding) {
		evt_ring_put(&cr->ring, cr->held_pos);
		cr->holding = false;
	}
}

static int evt_release(struct inode *inode, struct file *file)
{
	struct evt_cpu_ring *cr = file->private_data;

	if (evt_is_meta(file)) {
		evt_meta_put(file->private_data);
		return 0;
	}
	/*
	 * A killed drainer must not pin a sub-buffer, nor a snapshot's hold.
	 * A trigger's hold stays until a reader reaches its bound: what
	 * preceded a kernel report is kept for the next one.
	 */
	mutex_lock(&cr->reader_lock);
	evt_put_held(cr);
	evt_snapshot_reader_closed(cr);
	mutex_unlock(&cr->reader_lock);
	atomic_set(&cr->reader_open, 0);
	return 0;
}

/*
 * With the reader lock held: how many of @want bytes of the held
 * sub-buffer there are at @pos (0 at its end), or -ENODATA when none is
 * held. read() and splice() both go by it.
 */
static ssize_t evt_held_room(struct evt_cpu_ring *cr, loff_t pos, size_t want)
{
	if (!cr->holding)
		return -ENODATA;
	if (pos < 0 || pos >= cr->ring.subbuf_size)
		return 0;
	return min_t(size_t, want, cr->ring.subbuf_size - pos);
}

static ssize_t evt_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct evt_cpu_ring *cr = file->private_data;
	ssize_t ret;
	size_t n;

	if (evt_is_meta(file)) {
		struct evt_meta *m = file->private_data;

		return simple_read_from_buffer(buf, count, ppos, m->text, m->len);
	}
	mutex_lock(&cr->reader_lock);
	ret = evt_held_room(cr, *ppos, count);
	if (ret <= 0)
		goto out;
	n = ret;
	if (copy_to_user(buf, cr->mem + ((cr->held_pos + *ppos) & cr->ring.ring_mask), n)) {
		ret = -EFAULT;
		goto out;
	}
	*ppos += n;
	ret = n;
out:
	mutex_unlock(&cr->reader_lock);
	return ret;
}

static void evt_spd_release(struct splice_pipe_desc *spd, unsigned int i)
{
	put_page(spd->pages[i]);
}

#define EVT_SPLICE_PAGES 16

/* Hand the held sub-buffer's own pages to the pipe: no copy. */
static ssize_t evt_splice_read(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe,
			       size_t len, unsigned int flags)
{
	struct evt_cpu_ring *cr = in->private_data;
	struct page *pages[EVT_SPLICE_PAGES];
	struct partial_page partial[EVT_SPLICE_PAGES];
	struct splice_pipe_desc spd = {
		.pages = pages,
		.partial = partial,
		.nr_pages_max = EVT_SPLICE_PAGES,
		/*
		 * The kernel's own operations, not a copy in this module: a
		 * pipe may release its buffers after the module is gone.
		 */
		.ops = &nosteal_pipe_buf_ops,
		.spd_release = evt_spd_release,
	};
	unsigned long off;
	ssize_t ret;

	if (evt_is_meta(in))
		return -EINVAL;
	mutex_lock(&cr->reader_lock);
	ret = evt_held_room(cr, *ppos, len);
	if (ret <= 0)
		goto out;
	off = *ppos;
	len = ret;
	while (len && spd.nr_pages < EVT_SPLICE_PAGES) {
		unsigned long at = (cr->held_pos + off) & cr->ring.ring_mask;
		unsigned int poff = offset_in_page(at);
		unsigned int n = min_t(size_t, len, PAGE_SIZE - poff);
		/* Refcounted ring pages: the pipe's reference keeps them alive. */
		struct page *page = cr->pages[at >> PAGE_SHIFT];

		get_page(page);
		pages[spd.nr_pages] = page;
		partial[spd.nr_pages].offset = poff;
		partial[spd.nr_pages].len = n;
		partial[spd.nr_pages].private = 0;
		spd.nr_pages++;
		off += n;
		len -= n;
	}
	ret = 0;
	if (spd.nr_pages)
		ret = splice_to_pipe(pipe, &spd);
	if (ret > 0)
		*ppos += ret;
out:
	mutex_unlock(&cr->reader_lock);
	return ret;
}

static __poll_t evt_poll(struct file *file, poll_table *wait)
{
	struct evt_cpu_ring *cr = file->private_data;

	if (evt_is_meta(file))
		return EPOLLIN | EPOLLRDNORM;
	poll_wait(file, &cr->wq, wait);
	if (evt_ring_has_data(&cr->ring))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static long evt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct evt_cpu_ring *cr = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret = 0;
	unsigned long bound;
	u64 v;

	if (evt_is_meta(file))
		return -ENOTTY;
	mutex_lock(&cr->reader_lock);
	switch (cmd) {
	case EVT_IOC_PUT_GET_NEXT_SUBBUF:
		evt_put_held(cr);
		fallthrough;
	case EVT_IOC_GET_NEXT_SUBBUF:
		if (cr->holding) {
			ret = -EBUSY;
			break;
		}
		ret = evt_ring_get(&cr->ring, &cr->held_pos);
		if (!ret) {
			cr->holding = true;
			file->f_pos = 0;
		}
		break;
	case EVT_IOC_PUT_GET_SUBBUF_BELOW:
		if (copy_from_user(&v, uarg, sizeof(v))) {
			ret = -EFAULT;
			break;
		}
		evt_put_held(cr);
		/* A bound past any position the ring can reach: no bound. */
		bound = v > (ULONG_MAX >> cr->ring.sb_shift) ? ULONG_MAX :
			(unsigned long)v << cr->ring.sb_shift;
		ret = evt_ring_get_below(&cr->ring, &cr->held_pos, bound);
		if (!ret) {
			cr->holding = true;
			file->f_pos = 0;
		} else if (ret == -ENODATA) {
			/* At the bound: the holds it covers go, a later one stays. */
			evt_test_window(EVT_WINDOW_READER_REACHED);
			evt_snapshot_reader_reached(cr, bound);
		}
		break;
	case EVT_IOC_PUT_NEXT_SUBBUF:
		if (!cr->holding) {
			ret = -EINVAL;
			break;
		}
		evt_put_held(cr);
		break;
	case EVT_IOC_GET_SUBBUF_SIZE:
	case EVT_IOC_GET_PADDED_SUBBUF_SIZE:
		if (!cr->holding) {
			ret = -ENODATA;
			break;
		}
		v = cmd == EVT_IOC_GET_SUBBUF_SIZE ?
		    evt_ring_packet(&cr->ring, cr->held_pos)->content_size / 8 :
		    cr->ring.subbuf_size;
		if (copy_to_user(uarg, &v, sizeof(v)))
			ret = -EFAULT;
		break;
	case EVT_IOC_FLUSH:
		evt_flush_ring(cr);
		break;
	case EVT_IOC_GET_QUIESCENT: {
		struct evt_quiescent q;

		evt_ring_quiescent(cr, &q);
		if (copy_to_user(uarg, &q, sizeof(q)))
			ret = -EFAULT;
		break;
	}
	case EVT_IOC_GET_STATS: {
		struct evt_ring_stats st;

		evt_ring_stats(&cr->ring, &st);
		st.online = READ_ONCE(cr->online);
		if (copy_to_user(uarg, &st, sizeof(st)))
			ret = -EFAULT;
		break;
	}
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&cr->reader_lock);
	return ret;
}

static const struct file_operations evt_fops = {
	.owner = THIS_MODULE,
	.open = evt_open,
	.release = evt_release,
	.read = evt_read,
	.splice_read = evt_splice_read,
	.poll = evt_poll,
	.unlocked_ioctl = evt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = evt_llseek,
};

/**
 * evt_dev_add_ring() - create a ring's reader device (the listener's ring_added)
 * @cr: the ring, just allocated
 *
 * Return: 0 or the negative errno of device_create().
 */
int evt_dev_add_ring(struct evt_cpu_ring *cr)
{
	struct device *dev;

	dev = device_create(evt_class, NULL, MKDEV(MAJOR(evt_devt), evt_ring_minor(cr->channel, cr->cpu)),
			    NULL, "evtrace!%s!cpu%d", evt_channel_name(cr->channel), cr->cpu);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	cr->dev = dev;
	return 0;
}

/**
 * evt_dev_remove_ring() - remove a ring's reader device (the listener's ring_removed)
 * @cr: the ring, about to be freed
 */
void evt_dev_remove_ring(struct evt_cpu_ring *cr)
{
	if (cr->dev)
		device_destroy(evt_class, cr->dev->devt);
	cr->dev = NULL;
}

/**
 * evt_dev_init() - the character devices' region, class and metadata device
 *
 * Before the rings' hotplug callbacks, which add a reader device per ring.
 *
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int evt_dev_init(void)
{
	int ret;

	evt_nr_minors = 1 + EVT_NR_CHANNELS * nr_cpu_ids;
	ret = alloc_chrdev_region(&evt_devt, 0, evt_nr_minors, "evtrace");
	if (ret)
		return ret;
	cdev_init(&evt_cdev, &evt_fops);
	evt_cdev.owner = THIS_MODULE;
	ret = cdev_add(&evt_cdev, evt_devt, evt_nr_minors);
	if (ret)
		goto err_region;
	evt_class = evt_class_create("evtrace");
	if (IS_ERR(evt_class)) {
		ret = PTR_ERR(evt_class);
		goto err_cdev;
	}
	evt_class->devnode = evt_devnode;
	evt_meta_dev = device_create(evt_class, NULL, MKDEV(MAJOR(evt_devt), 0), NULL,
				     "evtrace!metadata");
	if (IS_ERR(evt_meta_dev)) {
		ret = PTR_ERR(evt_meta_dev);
		goto err_class;
	}
	return 0;
err_class:
	class_destroy(evt_class);
err_cdev:
	cdev_del(&evt_cdev);
err_region:
	unregister_chrdev_region(evt_devt, evt_nr_minors);
	return ret;
}

/**
 * evt_dev_exit() - remove the metadata device, the class and the region
 *
 * After the rings (and their reader devices) are gone.
 */
void evt_dev_exit(void)
{
	device_destroy(evt_class, MKDEV(MAJOR(evt_devt), 0));
	class_destroy(evt_class);
	cdev_del(&evt_cdev);
	unregister_chrdev_region(evt_devt, evt_nr_minors);
}
